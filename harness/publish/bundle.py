"""The publishable bundle: validated artifacts, their context, a manifest of digests and CLAIMS.md.

Every input (the freeze record, each frozen mode's aggregates and rows, the comparisons, and the system's source
files as the staged receipts hash them: `harness.publish.system_source`) is first copied into the bundle's staging
directory; from then on nothing reads the output directory. The independent validator (it shares no
code with the runner) checks the staged copies, the staged receipts against the staged freeze record, all in one
call, with every text re-embedded; one that is not eligible stops the bundle. Its verdicts are kept in the output
directory's validation/ folder and reused while every byte they read and the validator are unchanged, and the
fixture's full re-embedding is kept once per fixture, verifier and validator (`harness.validator.stored`). Each
stage is shown on stderr (`harness.publish.progress`). Comparisons (validated too), the HTML and Markdown reports,
TREC runs and qrels and per-query CSVs (`harness.publish.bundle_publications`) and CLAIMS.md are made from the
staged bytes, and exactly those bytes are published (MANIFEST.json hashes them): the staging directory is renamed
into place, and an existing bundle directory is never written into. A staging directory left by a bundle that was
killed is removed by the next one (`harness.publish.staging`).
"""

import json
from pathlib import Path
from typing import Any

from harness.atomic import write_file, write_text_file
from harness.evaluation.comparison.artifact import comparison_name
from harness.evaluation.gates.freeze import FREEZE_NAME
from harness.evaluation.gates.split_modes import frozen_modes, present_modes
from harness.evaluation.receipts.artifacts import aggregate_name, output_dataset, rows_name
from harness.evaluation.receipts.locations import FIXTURES, LOCATIONS_NAME, hinted
from harness.hashing import sha256_bytes, sha256_canonical, sha256_file
from harness.json_input import read_document
from harness.publish.bundle_archive import stage_archive
from harness.publish.bundle_error import BundleError as BundleError  # raised here, and re-exported
from harness.publish.bundle_inputs import stage_inputs
from harness.publish.bundle_publications import add_comparisons, add_exports_and_reports
from harness.publish.bundle_systems import stage_systems, validate_systems
from harness.publish.claims.claims_document import claims_markdown
from harness.publish.environment.carried_model import stage_model
from harness.publish.environment.stage import stage_environment
from harness.publish.local_paths import local_places, where_it_ran, written_in_words
from harness.publish.progress import Stages
from harness.publish.report.plotting import require_plotting
from harness.publish.source.system_source import stage_system_source
from harness.publish.staging import publish, remove_dead_staging, staging_directory
from harness.schema_check import validator
from harness.typed_commands import harness_command, validator_command
from harness.validator.core.report import Report
from harness.validator.stored import Options, Subject, validate_all

REQUIRED_SPLITS = ("calibration", "heldout")
ARTIFACTS = "artifacts"


def _copy(source: Path, target: Path) -> None:
    """One read of `source`, written to `target`: what is staged is what the bundle uses from then on."""
    if not source.is_file():
        raise BundleError(f"{source} is missing; rerun its split (`{harness_command('run')}`) into {source.parent}")
    write_file(target, source.read_bytes())


def _stage(output_dir: Path, staging: Path) -> tuple[list[tuple[Path, Path]], list[str]]:
    """Copy the freeze record, then every frozen mode's calibration and held-out receipts and rows (and its all-query
    ones when every frozen mode has them) and the comparisons of those splits; the staged aggregates and rows, and
    the held-out aggregates the freeze calls for and the output directory does not hold yet (then only calibration is
    staged: a calibration-only bundle, exploratory)."""
    if not (output_dir / FREEZE_NAME).is_file():
        raise BundleError(f"{output_dir} holds no {FREEZE_NAME}: a bundle publishes frozen runs; run "
                          f"`{harness_command('freeze')}` after calibration, then the held-out split")
    _copy(output_dir / FREEZE_NAME, staging / FREEZE_NAME)
    modes = frozen_modes(staging)
    assert modes is not None
    dataset = output_dataset(output_dir)
    if dataset is None:
        raise BundleError(f"{output_dir} holds no aggregate: a bundle holds the calibration and held-out receipts of "
                          f"every frozen mode ({', '.join(modes)}); run them into it first")
    missing = [aggregate_name(dataset, m, s) for s in REQUIRED_SPLITS for m in modes
               if not (output_dir / aggregate_name(dataset, m, s)).is_file()]
    heldout = [aggregate_name(dataset, m, "heldout") for m in modes]
    if missing and missing != heldout:
        raise BundleError(f"{output_dir} lacks {', '.join(missing)}: a bundle holds the calibration and held-out "
                          f"receipts of every frozen mode ({', '.join(modes)}), or the calibration ones alone (a "
                          "calibration-only bundle: exploratory)")
    if missing:  # a freeze and no held-out run yet: published as calibration only, exploratory
        return _stage_splits(output_dir, staging, dataset, modes, ["calibration"]), missing
    splits = [*REQUIRED_SPLITS, *(["all"] if set(modes) <= set(present_modes(output_dir, "all")) else [])]
    return _stage_splits(output_dir, staging, dataset, modes, splits), []


def _stage_splits(output_dir: Path, staging: Path, dataset: str, modes: tuple[str, ...],
                  splits: list[str]) -> list[tuple[Path, Path]]:
    artifacts = staging / ARTIFACTS
    artifacts.mkdir()
    staged = []
    for split in splits:
        for mode in modes:
            for name in (aggregate_name(dataset, mode, split), rows_name(dataset, mode, split)):
                _copy(output_dir / name, artifacts / name)
            staged.append((artifacts / aggregate_name(dataset, mode, split),
                           artifacts / rows_name(dataset, mode, split)))
        if (output_dir / comparison_name(dataset, split)).is_file():
            _copy(output_dir / comparison_name(dataset, split), artifacts / comparison_name(dataset, split))
    return staged


def _fixture_metadata(output_dir: Path, corpus: dict[str, Any]) -> dict[str, Any]:
    """The fixture's metadata, from the fixture the output directory's locations.json places (held to its digest)."""
    digest, path = corpus["fixture_sha256"], hinted(output_dir, FIXTURES, corpus["fixture_sha256"])
    if path is None or not path.is_file():
        raise BundleError(f"the receipts' fixture {corpus['fixture_file']} ({digest}) is not found: "
                          f"{output_dir / LOCATIONS_NAME} does not place it, or it is gone; bundle on the machine that "
                          "ran, with the fixture the run read")
    data = path.read_bytes()
    if sha256_bytes(data) != digest:
        raise BundleError(f"the fixture {path} is no longer the file the receipts name ({digest}): it changed while "
                          "the bundle was made; restore it, then bundle again")
    fixture = json.loads(data)
    return {"fixture_file": path.name, "fixture_sha256": digest,
            **{k: v for k, v in fixture.items() if k not in ("documents", "queries")}}


def _validated(staged: list[tuple[Path, Path]], staging: Path, output_dir: Path,
               archive: Path | None) -> tuple[list[dict[str, Any]], dict[str, Report]]:
    """Every staged aggregate through the validator, in one call, with every text re-embedded (the fixture's
    re-embedding kept once per fixture, verifier and validator); the verdicts kept in the output directory's
    validation/ folder, so a later bundle of the same bytes reuses them. Refused, listing the failing checks, unless
    all are eligible. The reports are returned by the aggregate's sha256, for the comparisons' validation."""
    (staging / "validation").mkdir()
    subjects = [Subject(aggregate, rows, staging / FREEZE_NAME, output_dir) for aggregate, rows in staged]
    refused, written = [], []
    known: dict[str, Report] = {}
    for (aggregate, _), report in zip(staged, validate_all(subjects, Options(full_embedding=True, archive=archive)),
                                      strict=True):
        known[sha256_bytes(aggregate.read_bytes())] = report
        document = report.to_dict()
        write_text_file(staging / "validation" / (aggregate.name.removesuffix(".aggregate.json") + ".validation.json"),
            json.dumps(document, indent=1, default=str) + "\n")
        written.append(document)
        if not report.eligible:
            problems = [check.line() for check in report.checks if check.status != "pass"]
            refused.append(f"{aggregate.name}: {report.verdict()}\n    " + "\n    ".join(problems[:8]))
    if refused:
        raise BundleError("not every aggregate is eligible, so nothing was bundled; the failing checks are listed "
                          f"above, and `{validator_command('AGGREGATE')}` shows each report in full\n"
                          + "\n".join(refused))
    return written, known


def _receipts(staged: list[tuple[Path, Path]]) -> list[dict[str, Any]]:
    try:
        return [json.loads(aggregate.read_bytes()) for aggregate, _ in staged]
    except ValueError as exc:
        raise BundleError(f"a staged aggregate is not JSON ({exc}): rerun its split") from None


def make_bundle(output_dir: Path, bundle_dir: Path, archive: Path | None = None, carry_model: bool = False) -> Path:
    """`archive`: the dataset's zip, for the validator to re-derive the fixture from (a dataset pinned by its archive
    alone, or a collection of your own, is eligible only so; SciFact's is also found through $SCIFACT_ARCHIVE)."""
    require_plotting("bundle")  # its report is drawn after minutes of validation: ask first
    if bundle_dir.exists():
        raise BundleError(f"{bundle_dir} exists; a bundle is never overwritten. Choose a new --bundle-dir.")
    bundle_dir.parent.mkdir(parents=True, exist_ok=True)
    remove_dead_staging(bundle_dir.parent)
    # A staging directory of its own: a second bundle at the same time never writes into (or removes) this one's.
    with staging_directory(bundle_dir) as staging, Stages("bundle", 6) as stages:
        stages.next("staging the freeze record, receipts, rows and the system's source")
        staged, missing = _stage(output_dir, staging)
        source = stage_system_source(staging, [aggregate for aggregate, _ in staged], output_dir)
        receipts = _receipts(staged)
        first = receipts[0]["receipt"]
        # before minutes of validation: what the reader installs (the wheel and the lock), and a collection of one's
        # own's archive; an aggregate off its schema is left to the validator, which refuses it
        early = all(validator("aggregate").is_valid(receipt) for receipt in receipts)
        environment = stage_environment(staging, receipts) if early else None
        carried = stage_archive(staging, output_dir, first["corpus"], archive) if early else None
        model = stage_model(staging, output_dir, first["embedding"]) if carry_model else None
        stages.next(f"validating {len(staged)} aggregates with every text re-embedded")
        reports, known = _validated(staged, staging, output_dir, archive)
        _write(staging / "fixture-metadata.json", _fixture_metadata(output_dir, first["corpus"]))
        _write(staging / "configuration.json", {"config": first["retrieval"]["config"],
                                                "config_sha256": first["retrieval"]["config_sha256"]})
        _write(staging / "environment.json", {**{k: first[k] for k in ("executable", "source", "dependencies")},
                                              "machine": {"ran_on": where_it_ran(first["machine"]),
                                                          **{k: v for k, v in first["machine"].items()
                                                             if k != "hostname"}}})
        freeze = read_document(staging / FREEZE_NAME, "freeze record", "freeze",
                               "bundle the output directory the freeze and the receipts belong to", BundleError)
        splits = list(dict.fromkeys(receipt["split"] for receipt in receipts))
        stages.next("validating the comparisons")
        systems = stage_systems(output_dir, staging, splits, freeze["freeze_sha256"])
        stage_inputs(staging, output_dir)  # the fixture and every run's store, for a reader on another machine
        comparisons = add_comparisons(staging, output_dir, splits, known)
        compared_systems = validate_systems(staging, systems, known, output_dir)
        stages.next("writing the exports and the reports")
        add_exports_and_reports(staging, splits, known)
        stages.next("writing CLAIMS.md and MANIFEST.json")
        claims = claims_markdown(receipts, freeze, reports, comparisons, source=source, systems=compared_systems,
                                 environment=environment,
                                 carried=None if carried is None else carried.relative_to(staging).as_posix(),
                                 model=model, missing=missing)
        write_text_file(staging / "CLAIMS.md", claims)
        written_in_words(staging, local_places(staging, output_dir, receipts, archive))
        files = sorted(p for p in staging.rglob("*") if p.is_file())
        manifest = {p.relative_to(staging).as_posix(): sha256_file(p) for p in files}
        _write(staging / "MANIFEST.json", {"files": manifest, "manifest_sha256": sha256_canonical(manifest)})
        if bundle_dir.exists():
            raise BundleError(f"{bundle_dir} appeared while this bundle was made (another bundle?); a bundle is never "
                              "overwritten. Choose a new --bundle-dir.")
        stages.next(f"publishing {bundle_dir}")
        publish(staging, bundle_dir)
    return bundle_dir


def _write(path: Path, value: Any) -> None:
    write_text_file(path, json.dumps(value, indent=1, ensure_ascii=False) + "\n")

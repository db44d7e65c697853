"""The publishable bundle: validated artifacts, their context, a manifest of digests and CLAIMS.md.

Every input (the freeze record, each frozen mode's aggregates and rows, the comparisons, and the system's source
files as the staged receipts hash them: `harness.publish.system_source`) is first copied into the bundle's staging
directory; from then on nothing reads the output directory. The independent validator (it shares no
code with the runner) checks the staged copies, the staged receipts against the staged freeze record; one that is
not eligible stops the bundle. Comparisons (validated too), the HTML and Markdown reports, TREC runs and qrels and
per-query CSVs (`harness.publish.bundle_publications`) and CLAIMS.md are made from the staged bytes, and exactly
those bytes are published (MANIFEST.json hashes them): the staging directory is renamed into place, and an existing
bundle directory is never written into. A staging directory left by a bundle that was killed is removed by the
next one (`harness.publish.staging`).
"""

import json
from pathlib import Path
from typing import Any

from harness.errors import RefusedError
from harness.evaluation.comparison.artifact import comparison_name
from harness.evaluation.gates.freeze import FREEZE_NAME
from harness.evaluation.gates.split_modes import frozen_modes, present_modes
from harness.evaluation.receipts.artifacts import aggregate_name, rows_name
from harness.hashing import sha256_bytes, sha256_canonical, sha256_file
from harness.json_input import read_document
from harness.publish.bundle_publications import add_comparisons, add_exports_and_reports
from harness.publish.bundle_systems import stage_systems, validate_systems
from harness.publish.claims.claims_document import claims_markdown
from harness.publish.source.system_source import stage_system_source
from harness.publish.staging import publish, remove_dead_staging, staging_directory
from harness.validator.core.report import Report
from harness.validator.pipeline import validate

REQUIRED_SPLITS = ("calibration", "heldout")
ARTIFACTS = "artifacts"


class BundleError(RefusedError):
    """The bundle cannot be made: missing artifacts, or an aggregate that fails validation."""


def _copy(source: Path, target: Path) -> None:
    """One read of `source`, written to `target`: what is staged is what the bundle uses from then on."""
    if not source.is_file():
        raise BundleError(f"{source} is missing; rerun its split (`python -m harness run`) into {source.parent}")
    target.write_bytes(source.read_bytes())


def _stage(output_dir: Path, staging: Path) -> list[tuple[Path, Path]]:
    """Copy the freeze record, then every frozen mode's calibration and held-out receipts and rows (and its all-query
    ones when every frozen mode has them) and the comparisons of those splits; the staged aggregates and rows."""
    if not (output_dir / FREEZE_NAME).is_file():
        raise BundleError(f"{output_dir} holds no {FREEZE_NAME}: a bundle publishes frozen runs; run `python -m "
                          "harness freeze` after calibration, then the held-out split")
    _copy(output_dir / FREEZE_NAME, staging / FREEZE_NAME)
    modes = frozen_modes(staging)
    assert modes is not None
    missing = [aggregate_name(m, s) for s in REQUIRED_SPLITS for m in modes
               if not (output_dir / aggregate_name(m, s)).is_file()]
    if missing:
        raise BundleError(f"{output_dir} lacks {', '.join(missing)}: a bundle holds the calibration and held-out "
                          f"receipts of every frozen mode ({', '.join(modes)})")
    splits = [*REQUIRED_SPLITS, *(["all"] if set(modes) <= set(present_modes(output_dir, "all")) else [])]
    artifacts = staging / ARTIFACTS
    artifacts.mkdir()
    staged = []
    for split in splits:
        for mode in modes:
            for name in (aggregate_name(mode, split), rows_name(mode, split)):
                _copy(output_dir / name, artifacts / name)
            staged.append((artifacts / aggregate_name(mode, split), artifacts / rows_name(mode, split)))
        if (output_dir / comparison_name(split)).is_file():
            _copy(output_dir / comparison_name(split), artifacts / comparison_name(split))
    return staged


def _validate(aggregate: Path, rows: Path, freeze: Path, destination: Path,
              known: dict[str, Report]) -> tuple[dict[str, Any], str | None]:
    """Validate the staged aggregate and rows against the staged freeze record; write the JSON report; return it, and
    None when eligible, else the verdict and failing checks. The report is kept in `known`, by the aggregate's
    sha256, for the comparisons' validation."""
    data = aggregate.read_bytes()
    report = validate(aggregate, rows, freeze=freeze, full_embedding=True)
    known[sha256_bytes(data)] = report
    written = report.to_dict()
    destination.write_text(json.dumps(written, indent=1, default=str) + "\n", encoding="utf-8")
    if report.eligible:
        return written, None
    problems = [check.line() for check in report.checks if check.status != "pass"]
    return written, f"{aggregate.name}: {report.verdict()}\n    " + "\n    ".join(problems[:8])


def _fixture_metadata(path: Path, digest: str) -> dict[str, Any]:
    data = path.read_bytes()
    if sha256_bytes(data) != digest:
        raise BundleError(f"the fixture {path} is no longer the file the receipts name ({digest}): it changed while "
                          "the bundle was made; restore it, then bundle again")
    fixture = json.loads(data)
    return {"fixture_path": str(path), "fixture_sha256": digest,
            **{k: v for k, v in fixture.items() if k not in ("documents", "queries")}}


def _validated(staged: list[tuple[Path, Path]], staging: Path) -> tuple[list[dict[str, Any]], dict[str, Report]]:
    """Every staged aggregate through the validator; refused, listing the failing checks, unless all are eligible."""
    (staging / "validation").mkdir()
    refused, reports = [], []
    known: dict[str, Report] = {}
    for aggregate, rows in staged:
        report, problem = _validate(aggregate, rows, staging / FREEZE_NAME, staging / "validation" / (
            aggregate.name.removesuffix(".aggregate.json") + ".validation.json"), known)
        reports.append(report)
        if problem is not None:
            refused.append(problem)
    if refused:
        raise BundleError("not every aggregate is eligible, so nothing was bundled; the failing checks are listed "
                          "above, and `python -m harness.validator AGGREGATE` shows each report in full\n"
                          + "\n".join(refused))
    return reports, known


def make_bundle(output_dir: Path, bundle_dir: Path) -> Path:
    if bundle_dir.exists():
        raise BundleError(f"{bundle_dir} exists; a bundle is never overwritten. Choose a new --bundle-dir.")
    bundle_dir.parent.mkdir(parents=True, exist_ok=True)
    remove_dead_staging(bundle_dir.parent)
    # A staging directory of its own: a second bundle at the same time never writes into (or removes) this one's.
    with staging_directory(bundle_dir) as staging:
        staged = _stage(output_dir, staging)
        source = stage_system_source(staging, [aggregate for aggregate, _ in staged])
        reports, known = _validated(staged, staging)
        receipts = [json.loads(aggregate.read_bytes()) for aggregate, _ in staged]
        first = receipts[0]["receipt"]
        _write(staging / "fixture-metadata.json", _fixture_metadata(Path(first["corpus"]["fixture_path"]),
                                                                    first["corpus"]["fixture_sha256"]))
        _write(staging / "configuration.json", {"config": first["retrieval"]["config"],
                                                "config_sha256": first["retrieval"]["config_sha256"]})
        _write(staging / "environment.json", {k: first[k] for k in ("executable", "source", "dependencies", "machine")})
        freeze = read_document(staging / FREEZE_NAME, "freeze record", "freeze",
                               "bundle the output directory the freeze and the receipts belong to", BundleError)
        splits = list(dict.fromkeys(receipt["split"] for receipt in receipts))
        systems = stage_systems(output_dir, staging, splits, freeze["freeze_sha256"])
        comparisons = add_comparisons(staging, output_dir, splits, known)
        compared_systems = validate_systems(staging, systems, known)
        add_exports_and_reports(staging, splits, known)
        claims = claims_markdown(receipts, freeze, reports, comparisons, source=source, systems=compared_systems)
        (staging / "CLAIMS.md").write_text(claims, encoding="utf-8")
        files = sorted(p for p in staging.rglob("*") if p.is_file())
        manifest = {p.relative_to(staging).as_posix(): sha256_file(p) for p in files}
        _write(staging / "MANIFEST.json", {"files": manifest, "manifest_sha256": sha256_canonical(manifest)})
        if bundle_dir.exists():
            raise BundleError(f"{bundle_dir} appeared while this bundle was made (another bundle?); a bundle is never "
                              "overwritten. Choose a new --bundle-dir.")
        publish(staging, bundle_dir)
    return bundle_dir


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

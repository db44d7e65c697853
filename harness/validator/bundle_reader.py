"""`scifact-validate --bundle DIR`: a publication bundle judged by its reader, from the bundle and the public archive.

In order: MANIFEST.json against every byte of the bundle (a changed, missing or added file named); every aggregate
under `artifacts/`, with its rows beside it and the bundle's `freeze.json`; every comparison of modes and every
comparison between systems (each run it read under `artifacts/runs/NAME/`, against that run's own freeze record).
Each is validated from what the bundle carries (`carried_inputs`): the fixture under `inputs/fixture/` (a compared
run's under `inputs/runs/NAME/fixture/` when it read another one), each run's store under `inputs/store/` or
`inputs/runs/NAME/store/`, and a system of its own replayed from `system-source/`;
the reader's `--fixture` and `--store-dir` take their place when given. Nothing is read from the places the receipts
name on the publisher's machine.
Every text of the fixture is re-embedded here, in this process, by the reader's embedder: within `fresh_only` no
kept re-embedding is recalled (not even one this machine's key verifies) and no stored verdict is read, and the
bundle's own `validation/` reports, CLAIMS.md, report and exports are held to their digests only, never believed.

One verdict line per artifact, by its path in the bundle, then one for the bundle; what the reader recomputed and
what stays the publisher's word are said in two lines of their own.
"""

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .bundle_manifest import manifest_problems
from .bundle_words import (
    attested_rankings,
    calibration_only,
    missing_heldout,
    publishers_word,
    relative_to,
    texts_recomputed,
    verdict_word,
)
from .core.digests import sha256_file
from .core.report import Report
from .dataset.named import check_named
from .embedding.kept_run import fresh_only
from .embedding.model_at_hand import offer_models
from .options import ELIGIBLE, FAILED, NOT_VERIFIED
from .pipeline import Inputs, validate, validate_comparison
from .system.check_through_system import shared_replays
from .system.replay_groups import system_of_its_own
from .texts.check_texts import SUBJECT as TEXTS
from .texts.check_texts import check_texts, texts_line

EXIT_ORDER = (ELIGIBLE, NOT_VERIFIED, FAILED)
ARTIFACTS = "artifacts"
FREEZE = "freeze.json"
FIXTURE_DIR = "inputs/fixture"  # the fixture JSON and its vectors sidecar
OWN_STORE = "inputs/store"  # the bundle's own run's store
RUNS = "inputs/runs"  # RUNS/NAME/store, RUNS/NAME/fixture: the compared run artifacts/runs/NAME/'s store, and its
# fixture when it read another one than the bundle's own run
SYSTEM_SOURCE = "system-source"
ARCHIVE_DIR = "inputs/archive"  # a collection of the publisher's own: its archive, NAME.zip
MODEL_DIR = "inputs/model"  # a model of the publisher's own, carried: inputs/model/NAME/
RECOMPUTED = ("MANIFEST.json's digest of every file; every row's metrics, every aggregate's means, every ranking "
              "replayed from the fixture and the live store (those the bundle carries, unless named), every statistic "
              "of every comparison; every document and query text of the fixture re-embedded by this validator's "
              "embedder in this process (nothing kept by anyone, nor any stored verdict, was reused); the fixture "
              "held to the validator's own pins where it holds pins for the dataset and, with an archive, to every "
              "document, query and judgement read from it (a collection it holds no pins for: to the archive alone, "
              "whose digest is the publisher's declaration)")

Say = Callable[[str], None]


@dataclass(frozen=True)
class BundleOptions:
    archive: Path | None = None
    fixture: Path | None = None
    store_dir: Path | None = None
    ollama_url: str | None = None
    dataset: str | None = None  # --dataset: the dataset the reader holds every artifact to (dataset.named)


@dataclass(frozen=True)
class Verdict:
    path: str  # relative to the bundle
    report: Report


def _aggregates(bundle: Path) -> list[tuple[Path, Path]]:
    return [(aggregate, aggregate.with_name(aggregate.name.removesuffix(".aggregate.json") + ".jsonl"))
            for aggregate in sorted((bundle / ARTIFACTS).glob("*.aggregate.json"))]


def _comparisons(bundle: Path) -> list[Path]:
    return sorted([*(bundle / ARTIFACTS).glob("?*-comparison-*.json"),
                   *(bundle / ARTIFACTS).glob("?*-systems-*.json")])


@contextmanager
def carried_inputs(bundle: Path, options: BundleOptions) -> Iterator[Inputs]:
    """What the bundle carries under `inputs/` (docs/validator.md, "What a bundle carries"), unless the reader named
    its own: the fixture, the bundle's own run's store (under None) and each compared run's store by its name, and
    its fixture when it read another one; and the system's source, `system-source/`, copied for the block into a
    temporary directory (a replay imports the system from there, and an import writes bytecode caches beside it,
    files MANIFEST.json does not list)."""
    fixtures = sorted((bundle / FIXTURE_DIR).glob("*.json"))
    fixture = options.fixture or (fixtures[0] if len(fixtures) == 1 else None)
    own = options.store_dir or (bundle / OWN_STORE if (bundle / OWN_STORE).is_dir() else None)
    stores: dict[str | None, Path] = {} if own is None else {None: own}
    run_fixtures: dict[str, Path] = {}
    for run in sorted(p.name for p in (bundle / ARTIFACTS / "runs").glob("*") if p.is_dir()):
        carried = bundle / RUNS / run / "store"
        if carried.is_dir() or own is not None:
            stores[run] = carried if carried.is_dir() or own is None else own  # no copy: it used the bundle's store
        its_own = sorted((bundle / RUNS / run / "fixture").glob("*.json"))
        if len(its_own) == 1:  # it read another fixture than the bundle's own run
            run_fixtures[run] = its_own[0]
    source = bundle / SYSTEM_SOURCE
    if not source.is_dir():
        yield Inputs(fixture, stores, None, run_fixtures)
        return
    with tempfile.TemporaryDirectory(prefix="scifact-bundle-source-") as temporary:
        copy = Path(temporary) / SYSTEM_SOURCE
        shutil.copytree(source, copy)
        yield Inputs(fixture, stores, copy, run_fixtures)


def _own_systems(bundle: Path) -> list[Path]:
    """The bundle's own aggregates of a system of its own (whose lanes the validator checks through the live system),
    not a run file's (read again, never asked)."""
    own = []
    for aggregate, _ in _aggregates(bundle):
        try:
            receipt = json.loads(aggregate.read_bytes())["receipt"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # the aggregate's own validation names what is wrong with it
        own += [aggregate] if system_of_its_own(receipt) is not None else []
    return own


def carried_archive(bundle: Path, options: BundleOptions) -> Path | None:
    """The archive the reader named, else the one a bundle of a collection of the publisher's own carries (its sha256
    is then held to the fixture's declaration, which is all such a collection's identity rests on)."""
    carried = sorted((bundle / ARCHIVE_DIR).glob("*.zip"))
    return options.archive or (carried[0] if len(carried) == 1 else None)


def carried_models(bundle: Path) -> list[Path]:
    """The models of the publisher's own a bundle made with --carry-model carries (each held to the declared files
    when it is used, like any model the reader supplies; the reader's --model ones are tried first)."""
    folder = bundle / MODEL_DIR
    return sorted(path for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []


def validate_bundle_artifacts(bundle: Path, options: BundleOptions, say: Say) -> list[Verdict]:
    """Every aggregate, then every comparison, each validated afresh with every text re-embedded, from the inputs the
    bundle carries unless the reader named others."""
    archive = carried_archive(bundle, options)
    offer_models(carried_models(bundle))
    verdicts: list[Verdict] = []
    known: dict[str, Report] = {}
    freeze = bundle / FREEZE
    with fresh_only(), carried_inputs(bundle, options) as inputs, shared_replays(
            _own_systems(bundle), inputs.store_dirs.get(None), inputs.fixture, inputs.system_path) as replayed:
        say(f"validator: --bundle: the live system of its own asked again: {replayed}")
        for aggregate, rows in _aggregates(bundle):
            say(f"validator: --bundle: validating {relative_to(bundle, aggregate)} with every text re-embedded")
            report = validate(aggregate, rows, fixture=inputs.fixture, freeze=freeze if freeze.is_file() else None,
                              full_embedding=True, store_dir=inputs.store_dirs.get(None), archive=archive,
                              ollama_url=options.ollama_url, system_path=inputs.system_path)
            known[sha256_file(aggregate)] = report
            verdicts.append(Verdict(relative_to(bundle, aggregate), report))
        for comparison in _comparisons(bundle):
            say(f"validator: --bundle: validating {relative_to(bundle, comparison)}")
            report = validate_comparison(comparison, full_embedding=True, known=known, archive=archive,
                                         ollama_url=options.ollama_url, inputs=inputs)
            verdicts.append(Verdict(relative_to(bundle, comparison), report))
    return verdicts


def _failing(verdict: Verdict) -> list[str]:
    """What a failed verdict names on the BUNDLE line: the artifact, or each text whose figures failed."""
    if verdict.path != TEXTS:
        return [verdict.path]
    return [name for name, tally in verdict.report.notes.get("texts", {}).items() if tally["failed"]] or [TEXTS]


def bundle_lines(bundle: Path, problems: Sequence[str], verdicts: Sequence[Verdict],
                 missing: Sequence[str] = ()) -> tuple[list[str], int]:
    """The report: each artifact's checks under its path, a verdict line per artifact (and one for the texts), the
    TEXTS, RECOMPUTED and PUBLISHER lines, one for the bundle; the exit code (0 only when the manifest holds and every
    verdict is eligible). `missing`: the frozen modes' held-out files the bundle does not carry."""
    texts = next((v.report for v in verdicts if v.path == TEXTS), None)
    lines = [f"{'MANIFEST':<12} {'FAIL' if problems else 'pass'}  " + (
        f"{len(problems)} problem(s) against MANIFEST.json" if problems else
        "every file of the bundle has the sha256 MANIFEST.json lists, and no file is missing or added")]
    lines += [f"{'MANIFEST':<12} FAIL  {problem}" for problem in problems]
    for verdict in verdicts:
        lines += [f"== {verdict.path}", *verdict.report.lines()]
    lines.append("")
    lines += [f"{'VERDICT':<12} {verdict_word(v.report)}: {v.path}: {v.report.verdict()}" for v in verdicts]
    if not verdicts:
        lines.append(f"{'VERDICT':<12} NOT ELIGIBLE: {ARTIFACTS}/ holds no aggregate; a bundle holds the runs it "
                     "publishes: fetch the whole bundle again")
    if texts is not None:
        lines.append(f"{'TEXTS':<12} {texts_line(texts.notes.get('texts', {}))}")
    lines += [f"{'RECOMPUTED':<12} by this reader: {RECOMPUTED}{texts_recomputed(texts)}",
              f"{'PUBLISHER':<12} the publisher's word, not recomputed: "
              f"{publishers_word(bundle, [(v.path, v.report) for v in verdicts], texts is not None)}"]
    codes = [v.report.exit_code() for v in verdicts] + ([FAILED] if problems or not verdicts else [ELIGIBLE])
    code = max(codes, key=EXIT_ORDER.index)
    failing = [name for v in verdicts if v.report.failed for name in _failing(v)] + (
        ["MANIFEST.json"] if problems else [])
    unverified = [v.path for v in verdicts if not v.report.failed and v.report.not_verified]
    artifacts = len([v for v in verdicts if v.path != TEXTS])
    held = f"all {artifacts} artifacts are eligible" + attested_rankings([v.report for v in verdicts]) + (
        ", and every figure of the texts equals its artifact" if texts is not None else "")
    if code == ELIGIBLE:
        said = f"ELIGIBLE for a claim: {bundle.name}: the manifest holds and {held}"
    elif code == NOT_VERIFIED:
        said = (f"NOT VERIFIED: {bundle.name}: nothing failed, and {', '.join(unverified)} could not be verified "
                "here; each artifact's unverified checks say what to supply (not eligible for a claim until then)")
    else:
        said = (f"NOT ELIGIBLE for a claim: {bundle.name}: failed: {', '.join(failing)}"
                + ("" if problems or not verdicts else "; each artifact's failing checks are listed above"))
    if missing:
        said = (f"ELIGIBLE, {calibration_only(missing)}: {bundle.name}: the manifest holds and {held}"
                if code == ELIGIBLE else f"{said}; {calibration_only(missing)}")
    lines.append(f"{'BUNDLE':<12} {said}")
    return lines, code


def bundle_problem(bundle: Path) -> str | None:
    """What makes DIR no bundle before any work starts, if anything (a usage error)."""
    if not bundle.is_dir():
        return (f"--bundle {bundle} {'is a file' if bundle.exists() else 'does not exist'}; name the directory that "
                "holds the bundle's MANIFEST.json")
    if not (bundle / "MANIFEST.json").is_file():
        return f"--bundle {bundle} holds no MANIFEST.json; name the bundle's own directory (the one with CLAIMS.md)"
    return None


def validate_bundle(bundle: Path, options: BundleOptions, say: Say) -> tuple[list[str], int]:
    bundle = Path(os.path.abspath(bundle))
    problems = manifest_problems(bundle)
    verdicts = validate_bundle_artifacts(bundle, options, say)
    if options.dataset is not None:
        for verdict in verdicts:
            check_named(verdict.report, options.dataset)
    if verdicts:  # every result figure of the texts against the artifacts just validated
        texts = check_texts(bundle, [v.path for v in verdicts])
        verdicts.append(Verdict(TEXTS, texts))
    return bundle_lines(bundle, problems, verdicts, missing_heldout(bundle))

"""What the bundle reader says beyond each artifact's verdict: the held-out runs the freeze names and the bundle does
not carry (a bundle without them is calibration only: exploratory), and whose word each part of the bundle is: the
RECOMPUTED line (with the texts' figures when they were checked) and the PUBLISHER line, every ATTESTED line of every
verdict by check name and artifact, and what is held to its digest only."""

import json
from collections.abc import Sequence
from pathlib import Path

from .core.report import Report

ARTIFACTS = "artifacts"
CHECKED_EXPORTS = ("summary.csv", "summary.json")


def missing_heldout(bundle: Path) -> list[str]:
    """Each frozen mode's held-out aggregate and rows the bundle does not carry, by their path in the bundle (none
    without a freeze record or an aggregate to name the dataset by)."""
    try:
        modes = json.loads((bundle / "freeze.json").read_bytes())["modes"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    stems = [p.name.removesuffix(".aggregate.json") for p in (bundle / ARTIFACTS).glob("*.aggregate.json")]
    datasets = sorted({stem.rsplit("-", 2)[0] for stem in stems if stem.count("-") >= 2})
    if len(datasets) != 1 or not isinstance(modes, list):
        return []
    missing = []
    for mode in modes:
        for suffix in (".aggregate.json", ".jsonl"):
            name = f"{ARTIFACTS}/{datasets[0]}-{mode}-heldout{suffix}"
            if not (bundle / name).is_file():
                missing.append(name)
    return missing


def calibration_only(missing: Sequence[str]) -> str:
    return ("calibration only: exploratory: the freeze names held-out runs this bundle does not carry ("
            + ", ".join(missing) + "), so no held-out figure and no confirmatory claim stands on it")


def _counted(paths: set[str]) -> str:
    runs = sum(p.endswith(".aggregate.json") for p in paths)
    others = len(paths) - runs
    parts = [f"{runs} run{'' if runs == 1 else 's'}"] if runs else []
    return ", ".join(parts + ([f"{others} comparison{'' if others == 1 else 's'}"] if others else []))


def attested(reports: Sequence[tuple[str, Report]]) -> str:
    """Every ATTESTED line of every verdict, by check name, with how many artifacts it was made for, in order of
    first appearance."""
    named: dict[str, set[str]] = {}
    for path, report in reports:
        for attestation in report.attestations:
            named.setdefault(attestation.name, set()).add(path)
    return ", ".join(f"{name} ({_counted(paths)})" for name, paths in named.items()) or "none"


def publishers_word(bundle: Path, reports: Sequence[tuple[str, Report]], texts_checked: bool) -> str:
    exports = sorted(p.relative_to(bundle).as_posix() for p in (bundle / "exports").glob("*") if p.is_file()
                     and not (texts_checked and (p.name in CHECKED_EXPORTS or p.suffix == ".tex")))
    digest_only = ["the bundle's validation/ reports"]
    digest_only += [] if texts_checked else ["CLAIMS.md", "report.html", "report.md"]
    others = "" if texts_checked else ", the summaries and the LaTeX table"
    digest_only += [f"{len(exports)} files of exports/ (TREC runs and qrels, ranx and MTEB JSON, per-query CSVs and "
                    f"scores{others})"] if exports else []
    texts = "; and the parts of the texts the TEXTS line names as not checked" if texts_checked else ""
    return (f"the ATTESTED lines above: {attested(reports)}; held to MANIFEST.json's digests only, not recomputed: "
            f"{', '.join(digest_only)}{texts}")


def texts_recomputed(report: Report | None) -> str:
    if report is None:
        return ""
    summary = report.notes.get("texts", {})
    count = sum(int(v["checked"]) for v in summary.values())
    return (f"; every result figure of {', '.join(summary)} ({count} figures) held to the validated artifact it "
            "claims to come from")


def verdict_word(report: Report) -> str:
    """The VERDICT line's first word: a run file's eligible claim is one of ranking attested."""
    if report.eligible:
        return "ELIGIBLE (ranking attested)" if report.notes.get("ranking") else "ELIGIBLE"
    return "NOT ELIGIBLE" if report.failed else "NOT VERIFIED"


def attested_rankings(reports: Sequence[Report]) -> str:
    """Which artifacts' claims rest on rankings made outside the harness, for the BUNDLE line."""
    attested = [report for report in reports if report.notes.get("ranking")]
    if not attested:
        return ""
    producers = sorted({name for report in attested for name in report.notes["ranking"]["producers"]})
    return (f"; {len(attested)} of them of ranking attested: the rankings of {' and '.join(map(repr, producers))} were "
            "made outside the harness (their run files' bytes read again and every metric recomputed; how they were "
            "made is the publisher's word)")


def relative_to(bundle: Path, path: Path) -> str:
    """A bundle's file as the reader names it: its path inside the bundle."""
    return path.relative_to(bundle).as_posix()

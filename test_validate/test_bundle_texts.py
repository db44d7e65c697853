"""The bundle's texts held to its validated artifacts (texts.figures): a real bundle (modes compared, and a comparison
between systems with its hypotheses) passes with every figure of its results checked; one figure raised in CLAIMS.md,
report.md, report.html or summary.csv, and the manifest resealed, fails naming the file and the line; the PUBLISHER
line lists every attestation, one added here among them; a verdict says when a lane was only replayed through the
live system."""

import re
import shutil
from pathlib import Path

import pytest

from fixtures.bundle_reader import fresh_reader, reseal
from harness.publish.bundle import make_bundle
from harness.validator.bundle_reader import Verdict, bundle_lines
from harness.validator.cli import main
from harness.validator.core import catalog
from harness.validator.core.report import Report
from harness.validator.texts.check_texts import check_texts

from .systems_compared import SystemsCompared
from .test_bundle import as_clean_checkout

pytestmark = pytest.mark.real_model
RESULTS = ("'Results'", "'Comparisons'", "'Systems compared'", "'heldout'", "'calibration'")


@pytest.fixture(scope="module")
def bundle(systems_heldout: SystemsCompared, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle of k1's runs with its comparisons of modes and its comparison between systems, made once."""
    copy = systems_heldout.fresh(tmp_path_factory.mktemp("texts-runs"))
    as_clean_checkout(copy.k1)
    return make_bundle(copy.k1.out, tmp_path_factory.mktemp("texts-bundle") / "bundle")


def _validated(bundle: Path) -> list[str]:
    return sorted(p.relative_to(bundle).as_posix() for p in (bundle / "artifacts").glob("*.json"))


def test_every_figure_of_an_honest_bundles_texts_equals_its_artifact(bundle: Path) -> None:
    report = check_texts(bundle, _validated(bundle))
    assert report.eligible, "\n".join(report.lines())
    summary = report.notes["texts"]
    assert set(summary) >= {"CLAIMS.md", "report.md", "report.html", "exports/summary.csv", "exports/summary.json",
                            "exports/tiny-test-headline.tex"}
    assert summary["CLAIMS.md"]["checked"] > 500 and summary["report.html"]["checked"] > 500, summary
    assert summary["exports/summary.csv"]["checked"] >= 6 * 34, summary
    # no figure of CLAIMS.md's Results, Comparisons or Systems compared sections is left unchecked
    claims = summary["CLAIMS.md"]["not_checked"]
    assert not [what for what in claims if any(section in what for section in RESULTS)], claims
    assert not [what for name in ("report.md", "report.html") for what in summary[name]["not_checked"]
                if "unknown layout" in what], summary


# the check of the texts, and the test that makes it fail alone (test_check_coverage.py counts it)
TEXTS_VIOLATIONS = {"texts.figures": "test_one_raised_figure_fails_naming_its_file_and_line"}

RAISED = {  # a figure of each text raised by 0.1, as it is written there
    "CLAIMS.md": ("| `hybrid` | 4 | 1.0000 |", "| `hybrid` | 4 | 1.1000 |"),
    "report.md": ("| nDCG@10 | 1.0000 \\[1.0000, 1.0000\\]", "| nDCG@10 | 1.1000 \\[1.0000, 1.0000\\]"),
    "report.html": ('<td class="num">[+0.0000, +0.0000]</td>', '<td class="num">[+0.1000, +0.0000]</td>'),
    "exports/summary.csv": (",fts_only,heldout,,scifact-contract,4,1.0,", ",fts_only,heldout,,scifact-contract,4,1.1,"),
}


def _raise(bundle: Path, name: str) -> int:
    """The first such figure of `name` raised; its line number."""
    old, new = RAISED[name]
    text = (bundle / name).read_text(encoding="utf-8")
    assert old in text, name
    (bundle / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return text[:text.index(old)].count("\n") + 1


@pytest.mark.parametrize("name", sorted(RAISED))
def test_one_raised_figure_fails_naming_its_file_and_line(bundle: Path, tmp_path: Path, name: str) -> None:
    forged = Path(shutil.copytree(bundle, tmp_path / "forged"))
    line = _raise(forged, name)
    report = check_texts(forged, _validated(forged))
    failed = [c.detail for c in report.failed]
    assert {c.name for c in report.failed} == set(TEXTS_VIOLATIONS)
    assert failed and all(detail.startswith(f"{name} line {line}:") for detail in failed), failed
    assert any(re.search(r"\b1\.1(000)?\b|0\.1000", detail) for detail in failed), failed


def test_a_malformed_figure_fails_naming_its_line(bundle: Path, tmp_path: Path) -> None:
    forged = Path(shutil.copytree(bundle, tmp_path / "forged"))
    claims = (forged / "CLAIMS.md").read_text(encoding="utf-8")
    (forged / "CLAIMS.md").write_text(claims.replace("| `hybrid` | 4 | 1.0000 |", "| `hybrid` | 4 | 1.00O0 |", 1),
                                      encoding="utf-8")
    failed = [c.detail for c in check_texts(forged, _validated(forged)).failed]
    assert len(failed) == 1 and "'1.00O0' is not a well-formed figure" in failed[0], failed


def test_the_reader_fails_a_bundle_whose_texts_were_raised_and_resealed(
        bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fresh_reader(tmp_path, monkeypatch)
    forged = Path(shutil.copytree(bundle, tmp_path / "forged"))
    for name in RAISED:
        _raise(forged, name)
    reseal(forged)
    code = main(["--bundle", str(forged)])
    out = capsys.readouterr().out
    assert code == 1, out
    last = out.splitlines()[-1]
    assert last.startswith("BUNDLE       NOT ELIGIBLE for a claim") and "MANIFEST.json" not in last, last
    assert all(name in last for name in RAISED), last
    assert "VERDICT      NOT ELIGIBLE: CLAIMS.md and the reports:" in out
    artifacts = [line for line in out.splitlines() if line.startswith("VERDICT") and "artifacts/" in line]
    assert artifacts and all(line.startswith("VERDICT      ELIGIBLE") for line in artifacts), artifacts


def test_the_reader_of_an_honest_bundle_says_what_it_checked_and_whose_word_the_rest_is(
        bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fresh_reader(tmp_path, monkeypatch)
    code = main(["--bundle", str(bundle)])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert re.search(r"CLAIMS\.md: \d{3,} figures checked, every one equals its artifact", lines["TEXTS"])
    assert "not checked: the plots (SVG)" in lines["TEXTS"]
    assert re.search(r"every result figure of CLAIMS\.md, .* \(\d+ figures\)", lines["RECOMPUTED"])
    publisher = lines["PUBLISHER"]
    assert all(re.search(rf"\b{name} \(6 runs\)", publisher) for name in ("latency", "machine", "history")), publisher
    assert "validation/ reports" in publisher and "files of exports/" in publisher
    assert "every figure of the texts equals its artifact" in lines["BUNDLE"]


def test_the_publisher_line_lists_an_attestation_added_to_the_catalog(bundle: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(catalog.ATTESTATIONS, "test.attested", "a statement no reader can recompute")
    report = Report("aggregate")
    report.ok("rows.count", "the rows counted")
    report.attest("test.attested", "the run's statement")
    other = Report("aggregate")
    other.ok("rows.count", "the rows counted")
    other.attest("test.attested", "the run's statement")
    other.attest("latency", "measured by the run")
    lines, code = bundle_lines(bundle, [], [Verdict("artifacts/a.aggregate.json", report),
                                            Verdict("artifacts/b.aggregate.json", other)])
    publisher = next(line for line in lines if line.startswith("PUBLISHER"))
    assert "the ATTESTED lines above: test.attested (2 runs), latency (1 run);" in publisher, publisher
    assert code == 0


def test_a_verdict_says_a_lane_was_only_replayed_through_the_live_system() -> None:
    report = Report("aggregate")
    report.ok("replay.lexical", "lexical lane replayed through the system: ...")
    report.attest("replay.through_system", "the lexical lanes of this run were replayed through the system")
    report.notes["lane_verification"] = {"lexical": "replayed through the live system, not independently recomputed",
                                         "dense": "recomputed independently from the fixture's vectors"}
    assert report.verdict().endswith("; the lexical lane was replayed through the live system, not recomputed")
    report.attestations.clear()
    assert "replayed" not in report.verdict()


def test_the_words_of_each_lane_follow_the_check_that_ran(bundle: Path) -> None:
    """A built-in hybrid's fusion, which the validator recomputes, is said to be recomputed, naming its check."""
    for name in ("CLAIMS.md", "report.md"):
        text = (bundle / name).read_text(encoding="utf-8")
        hybrid = [line for line in text.splitlines() if line.startswith("| held-out, hybrid")
                  or (line.startswith("- `hybrid` ") and "; fusion: " in line)]
        assert hybrid, name
        assert all("recomputed independently from the fixture and the live store (replay.fusion)" in line
                   and "replayed through" not in line for line in hybrid), hybrid


def test_a_confirmatory_pair_says_what_it_rests_on(bundle: Path) -> None:
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert "- [confirmatory, on the publisher's attested held-out record] k1/" in claims
    assert "- [confirmatory] " not in claims
    assert "confirmatory (on the publisher's attested held-out record), k1/" in claims
    report = (bundle / "report.md").read_text(encoding="utf-8")
    assert "| confirmatory, on the publisher's attested held-out record |" in report

"""`python -m harness report`: one self-contained HTML file and its Markdown version, from validated artifacts only
(or stamped UNVALIDATED), every number of every table equal to the artifacts it came from."""

import json
import re
from pathlib import Path

import pytest

from fixtures.archives import TINY_DATASET
from fixtures.cli import run_tiny_cli
from harness.evaluation.comparison.artifact import CompareRequest, compare
from harness.publish.report.report import ReportRefused, write_report
from harness.publish.text.dataset_words import has_references, long_title, short_title
from harness.publish.verdicts import validator_judgement

from .comparisons import ValidatedReport, varied_output
from .report_check import check_report, parse, parse_markdown
from .support import RunCopy

NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink")


def _self_contained(html: Path) -> None:
    text = html.read_text(encoding="utf-8")
    tables = parse(html)
    assert not tables.tags & {"script", "link", "img", "iframe", "object", "embed"}, tables.tags
    assert all(value.startswith("#") for _, _, value in tables.references), tables.references
    assert "@import" not in text and not re.findall(r"url\((?!#)", text)  # only the SVGs' own clip paths
    remote = [m for m in re.findall(r"https?://[^\s\"'<>)]+", text) if not m.startswith(NAMESPACES)]
    assert not remote, remote
    assert text.count("<svg") >= 6


@pytest.mark.real_model
def test_a_validated_report(validated_report: ValidatedReport) -> None:
    html, markdown = validated_report.html, validated_report.markdown
    assert validated_report.summary["splits"] == ["heldout", "calibration"]
    assert check_report(html, validated_report.out) == ["heldout", "calibration"]
    _self_contained(html)
    text = html.read_text(encoding="utf-8")
    # the tiny collection is no SciFact: titled by its own name, with no SciFact reference figures beside it
    assert "<title>tiny-test retrieval evaluation</title>" in text and "UNVALIDATED" not in text
    assert "Reference figures" not in text and "the collection tiny-test, system" in text
    assert "passed the independent validator" in text
    verdict = "<strong>hybrid \u2212 fts_only</strong>: +0.0000 nDCG@10"
    assert text.count(verdict) == 1 and text.index(verdict) < text.index("id=\"split-heldout\"")  # once, leading
    assert "No comparison artifact for this split" in text  # calibration has none here
    notes = markdown.read_text(encoding="utf-8")
    order = ["**nDCG@10 and Recall@10, mean over each split", "## Verdicts on held-out", "## Held-out (4 queries)",
             "## Calibration (2 queries)", "## Provenance", "## What these results support"]
    assert [notes.index(heading) for heading in order] == sorted(notes.index(heading) for heading in order)
    assert notes.count("- **hybrid \u2212 fts\\_only**") + notes.count("- **hybrid \u2212 fts_only**") == 1
    # the Markdown as rendered: its escapes show as the HTML's text; a group's heading row has empty cells there
    shown = [row[:1] if not any(row[1:]) else row for row in parse_markdown(markdown).rows]
    for _, body in parse(html).tables.values():
        for row in body:
            assert row in shown, row
    assert "## What these results support, and what they do not" in notes and "superiority" in notes


def test_an_unvalidated_report_of_varied_rows(run_copy: RunCopy, tmp_path: Path) -> None:
    varied_output(run_copy)
    compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False), validator_judgement)
    html, markdown = tmp_path / "report.html", tmp_path / "report.md"
    write_report(run_copy.out, html, markdown, validated=False, replace=False)
    assert check_report(html, run_copy.out) == ["heldout", "calibration"]
    _self_contained(html)
    text = html.read_text(encoding="utf-8")
    # the answer first: held-out's modes tie in the clean run, and the reading says so rather than naming one
    assert text.index("id=\"headline\"") < text.index("id=\"split-heldout\"") and "id=\"references\"" not in text
    assert "fts_only, vector_only and hybrid share the highest nDCG@10 (1.0000)" in text
    assert "No comparison between its modes was made" in text  # held-out has none in this copy
    for comparison in json.loads((run_copy.out / "tiny-test-comparison-calibration.json").read_bytes())["comparisons"]:
        pair = f"<strong>{comparison['a']} \u2212 {comparison['b']}</strong>: "
        assert text.count(pair) == 1 and text.index(pair) > text.index("id=\"split-calibration\""), pair
    assert "the contract embeds documents as" not in text  # MTEB's SciFact figure speaks of SciFact only
    assert "<title>tiny-test retrieval evaluation \u2014 UNVALIDATED</title>" in text
    assert '<h1>tiny-test retrieval evaluation <span class="stamp">UNVALIDATED</span></h1>' in text
    assert markdown.read_text(encoding="utf-8").startswith("# tiny-test retrieval evaluation \u2014 UNVALIDATED")
    with pytest.raises(ReportRefused, match="never overwritten"):
        write_report(run_copy.out, html, markdown, validated=False, replace=False)
    write_report(run_copy.out, html, markdown, validated=False, replace=True)


def test_a_report_of_ineligible_artifacts_is_refused(run_copy: RunCopy, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    run_copy.edit_aggregate("hybrid", "calibration", lambda a: a["metrics"].update(failures=3))
    for mode in ("fts_only", "vector_only", "hybrid"):  # a report of calibration alone: three validations, not six
        run_copy.aggregate_path(mode, "heldout").unlink()
    html = tmp_path / "report.html"
    with pytest.raises(ReportRefused, match="not ELIGIBLE") as caught:
        write_report(run_copy.out, html, tmp_path / "report.md", validated=True, replace=False)
    assert "tiny-test-hybrid-calibration.aggregate.json: NOT ELIGIBLE" in str(caught.value)
    assert not html.exists()


def test_the_command_line(run_copy: RunCopy, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "r.html")
    outcome = run_tiny_cli(["report", "--output-dir", str(tmp_path / "missing"), "--out", out], capsys)
    assert outcome.code == 2 and outcome.err.startswith("error: --output-dir") and len(outcome.err.splitlines()) == 1
    outcome = run_tiny_cli(["report", "--output-dir", str(tmp_path), "--out", out], capsys)
    assert outcome.code == 2 and "holds no split with its modes' aggregates" in outcome.err
    outcome = run_tiny_cli(["report", "--output-dir", str(run_copy.out), "--out", str(tmp_path)], capsys)
    assert outcome.code == 2 and "is a directory" in outcome.err
    outcome = run_tiny_cli(["report", "--output-dir", str(run_copy.out), "--out", out, "--markdown", out], capsys)
    assert outcome.code == 2 and "the HTML file too" in outcome.err
    outcome = run_tiny_cli(["report", "--output-dir", str(run_copy.out), "--out", out, "--unvalidated"], capsys)
    assert outcome.code == 0 and outcome.out.startswith("UNVALIDATED") and (tmp_path / "r.md").is_file()
    outcome = run_tiny_cli(["report", "--output-dir", str(run_copy.out), "--out", out, "--unvalidated"], capsys)
    assert outcome.code == 3 and "never overwritten" in outcome.err and len(outcome.err.splitlines()) == 1
    (run_copy.out / "tiny-test-comparison-heldout.json").write_text("{not json", encoding="utf-8")
    outcome = run_tiny_cli(["report", "--output-dir", str(run_copy.out), "--out", out, "--unvalidated", "--replace"],
                           capsys)
    assert outcome.code == 2 and "is not valid JSON" in outcome.err and "Traceback" not in outcome.err


def test_a_scifact_run_is_titled_so_and_shows_scifacts_reference_figures(run_copy: RunCopy, tmp_path: Path) -> None:
    """The same report once the receipts name SciFact's contract: its title, its name and its published figures."""
    for path in run_copy.out.glob(f"{TINY_DATASET}-*"):  # the names carry the dataset the receipts name
        path.rename(path.with_name("scifact-" + path.name.removeprefix(f"{TINY_DATASET}-")))
    for path in run_copy.out.glob("*.aggregate.json"):
        aggregate = json.loads(path.read_bytes())
        aggregate["receipt"]["corpus"]["contract"]["name"] = "beir-scifact"
        aggregate["per_query_path"] = "scifact-" + aggregate["per_query_path"].removeprefix(f"{TINY_DATASET}-")
        path.write_text(json.dumps(aggregate), encoding="utf-8")
    html, markdown = tmp_path / "report.html", tmp_path / "report.md"
    write_report(run_copy.out, html, markdown, validated=False, replace=False)
    text = html.read_text(encoding="utf-8")
    assert "<title>SciFact retrieval evaluation \u2014 UNVALIDATED</title>" in text
    assert "BEIR SciFact, system" in text and "Published SciFact nDCG@10 of other tools" in text
    assert text.index("id=\"headline\"") < text.index("id=\"references\"") < text.index("id=\"split-heldout\"")
    assert "## Reference figures from other tools" in markdown.read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "short", "long", "references"), [
    ("beir-scifact", "SciFact", "BEIR SciFact", True),
    ("beir-trec-covid", "TREC-COVID", "BEIR TREC-COVID", False),
    ("my-collection", "my-collection", "the collection my-collection", False),
])
def test_a_report_names_the_dataset_its_receipts_name(name: str, short: str, long: str, references: bool) -> None:
    receipt = {"corpus": {"contract": {"name": name}}}
    assert (short_title(receipt), long_title(receipt), has_references(receipt)) == (short, long, references)

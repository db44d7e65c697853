"""What the report (HTML and Markdown), CLAIMS.md and `compare` print say of a family of hypotheses: beside each
confirmatory result, which test ran, its p and Holm-adjusted p, and one sentence saying that the declared test's
p-value, Holm-adjusted over the family at its alpha, one- or two-sided, decides, and that the bootstrap interval does
not; so a bootstrap interval that excludes 0 beside "not supported" is explained on the page. Every other pair is
labelled exploratory."""

from html import escape
from pathlib import Path
from typing import Any

from harness.publish.claims.claims_systems import systems_section
from harness.publish.report.report_markdown import table_markdown
from harness.publish.report.report_sections import table_html
from harness.publish.report.report_systems import systems_html, systems_markdown
from harness.publish.report.systems_files import SystemsFile
from harness.publish.text.markdown_text import inert
from harness.publish.text.systems_text import hypothesis_lines, systems_summary

DECIDES = ("Decided by the declared test's one-sided p-value, Holm-adjusted over the family of 2 hypotheses declared "
           "at the freeze of mine: \"supported\" when it is below \u03b1 = 0.05 and the difference lies in the "
           "declared direction; the 95% bootstrap interval is descriptive and decides nothing, so an interval that "
           "excludes 0 beside \"not supported\" is no contradiction.")
RAN = "one-sided paired randomization test, H1: mine/hybrid > base/hybrid"
FIXTURE = {"sha256": "sha256:" + "4" * 64, "profile": "scifact-contract"}
PACKAGED = {"model": "sentence-transformers/all-MiniLM-L6-v2", "identity_sha256": "sha256:" + "5" * 64,
            "dimensions": 384}
MINE = {"model": "my-org/my-model", "identity_sha256": "sha256:" + "6" * 64, "dimensions": 768}


def _difference(mean: float, low: float, high: float, p: float, holm: float) -> dict[str, Any]:
    return {"mean_difference": mean, "ci_low": low, "ci_high": high,
            "randomization": {"extreme_count": 0, "p_value": p}, "t_test": {"statistic": 2.0, "df": 39, "p_value": p},
            "effect_size": 0.3, "wins": 20, "ties": 5, "losses": 15, "holm_p_value": holm,
            "significant_after_holm": holm < 0.05}


def _member(statement: str, metric: str, status: str, result: dict[str, Any] | None) -> dict[str, Any]:
    declaration = {"a": {"mode": "hybrid"}, "b": {"mode": "hybrid", "freeze_sha256": "sha256:" + "2" * 64,
                                                  "system": {"name": "bm25", "version": "1"}, "output_dir": "../base"},
                   "metric": metric, "direction": "a_greater", "test": "randomization", "sided": "one",
                   "statement": statement}
    return {"declaration": declaration, "status": status, "reason": "why", "result": result,
            "pair": {"a": "mine/hybrid", "b": "base/hybrid"} if result else None}


def _document() -> dict[str, Any]:
    """Held-out, 40 queries: mine/hybrid above base/hybrid on nDCG@10 with a bootstrap interval above 0 and a one-sided
    p of 0.03, which Holm over the family of two lifts to 0.06: not supported."""
    metrics = {m: _difference(0.02, 0.001, 0.04, 0.03, 0.09) for m in ("ndcg_at_10", "mrr_at_10")}
    result = {"metric": "ndcg_at_10", "test": "randomization", "sided": "one", "test_ran": RAN,
              "mean_difference": 0.02, "p_value": 0.03, "holm_p_value": 0.06, "alpha": 0.05, "significant": False,
              "in_declared_direction": True, "supported": False}
    return {"split": "heldout", "query_count": 40, "scope": "the 40 held-out queries", "metrics": ["ndcg_at_10"],
            "inputs": [{"aggregate": "tiny-test-hybrid-heldout.aggregate.json"}],
            "inputs_validation": {"validated": True},
            "runs": [{"name": "base", "modes": ["hybrid"], "freeze": {}, "system": {"name": "bm25", "version": "1"},
                      "fixture": FIXTURE, "embedding": PACKAGED},
                     {"name": "mine", "modes": ["hybrid"], "freeze": {}, "system": {"name": "x", "version": "2"},
                      "fixture": FIXTURE, "embedding": PACKAGED}],
            "fixtures": "every run read one fixture",
            "comparisons": [{"a": "mine/hybrid", "b": "base/hybrid", "status": "confirmatory", "metrics": metrics}],
            "hypotheses": [{"declared_by": "mine", "freeze_sha256": "sha256:" + "3" * 64, "freeze_field": "hypotheses",
                            "alpha": 0.05, "adjustment": "holm", "members": [
                                _member("hybrid > hybrid", "ndcg_at_10", "confirmatory", result),
                                _member("hybrid > hybrid", "mrr_at_10", "exploratory", None)]}]}


def test_each_confirmatory_result_says_what_decides_it() -> None:
    first, second = hypothesis_lines(_document())
    assert "95% CI [+0.0010, +0.0400]" in first and f"{RAN}, p = 0.0300, Holm-adjusted over the family p = 0.0600" \
        in first
    assert first.endswith(f"not supported (the adjusted p is not below \u03b1 = 0.05). {DECIDES}"), first
    assert "(2 of 2 hypotheses, family-wise \u03b1 = 0.05)" in second and second.endswith(": exploratory (why)")
    assert "Decided by" not in second


def test_the_report_claims_and_compare_print_it_beside_the_result(tmp_path: Path) -> None:
    document = _document()
    files = [SystemsFile(tmp_path / "x.json", b"", document)]
    markdown = "\n".join(systems_markdown(files, table_markdown))
    html = "\n".join(systems_html(files, table_html))
    claims = "\n".join(systems_section([document]))
    printed = "\n".join(systems_summary(tmp_path / "x.json", document, None))
    for page, written in ((markdown, inert), (claims, inert), (printed, str)):
        [line] = [line for line in page.splitlines() if written(RAN) in line]
        assert line.endswith(written(DECIDES)), line
    assert f"{escape(RAN)}, p = 0.0300" in html and f"{escape(DECIDES)}</li>" in html
    column = "p (Holm over every pair: exploratory)"
    assert inert(column) in markdown and column in html
    assert "No claim of superiority" in claims
    assert inert("Holm over every pair of this file (1): an exploratory reading; the hypothesis declared on this pair "
                 "is decided by its own declared test (below)") in claims


def _two_fixtures() -> dict[str, Any]:
    """The same document, mine's run on a fixture of its own model: the same data, another embedding."""
    document = _document()
    document["runs"][1].update(fixture={**FIXTURE, "sha256": "sha256:" + "7" * 64}, embedding=MINE)
    document["fixtures"] = "the runs read 2 fixtures that hold the same documents, queries and judgements and differ"
    return document


def test_each_arm_s_model_is_named_beside_the_figures_when_the_runs_read_two_fixtures(tmp_path: Path) -> None:
    document = _two_fixtures()
    files = [SystemsFile(tmp_path / "x.json", b"", document)]
    markdown = "\n".join(systems_markdown(files, table_markdown))
    html = "\n".join(systems_html(files, table_html))
    claims = "\n".join(systems_section([document]))
    printed = "\n".join(systems_summary(tmp_path / "x.json", document, None))
    models = f"{MINE['model']} / {PACKAGED['model']}"
    for page, written in ((markdown, inert), (html, escape), (claims, inert), (printed, str)):
        assert written(f"base = bm25 1 (hybrid, embedded by {PACKAGED['model']})") in page, page
        assert written(f"mine = x 2 (hybrid, embedded by {MINE['model']})") in page, page
        assert written(document["fixtures"]) in page, page
        assert written(f"mine/hybrid [{MINE['model']}] \u2212 base/hybrid [{PACKAGED['model']}]") in page, page
    assert inert("embedding models (a / b)") in markdown and f">{escape(models)}</td>" in html, html
    labelled = inert(f"mine/hybrid \u2212 base/hybrid ({models})")
    assert f"| {labelled} | nDCG@10 |" in claims, claims
    assert inert(f"Holm over every pair of this file (1): an exploratory reading; embeddings {models}") in claims
    one = _document()
    for lines in (systems_section([one]), systems_summary(tmp_path / "x.json", one, None)):
        assert not any(str(PACKAGED["model"]) in line or "embedded by" in line or "ixtures:" in line
                       for line in lines), lines

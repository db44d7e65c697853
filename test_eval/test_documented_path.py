"""The README's publishing path is a test: the block between its documented-path markers is run as written, and so is
the own-system path between the plugin-path markers of docs/systems.md.

The default suite checks the blocks' shape; `pytest -m documented_path --scifact-spend-heldout` (CI, on a fresh clone)
runs them with bash from the clone's root, relative paths as printed, so a page that drifts from what works fails.
"""

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from benchmarks.publishing import documented_block
from harness.evaluation.history.heldout_record import RECORD_VARIABLE
from test_validate.report_check import check_report

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
STEPS = ("make calibration", "-m harness freeze", "-m pytest -m heldout", "-m pytest -m final", "-m harness.validator",
         "-m harness compare", "-m harness bundle", "make report")


PLUGIN_START, PLUGIN_END = "<!-- plugin-path:start -->", "<!-- plugin-path:end -->"
PLUGIN_PAGE = ROOT / "docs" / "systems.md"


def commands(block: str) -> list[str]:
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_block_walks_the_flow_in_order_with_relative_paths() -> None:
    lines = commands(documented_block(README))
    positions = [next(i for i, line in enumerate(lines) if step in line) for step in STEPS]
    assert positions == sorted(positions), dict(zip(STEPS, positions, strict=True))
    spending = [line for line in lines if re.search(r"-m pytest -m (heldout|final|parity)\b", line)]
    assert len(spending) == 2 and all("--scifact-spend-heldout" in line.split() for line in spending), spending
    for line in lines:
        words = shlex.split(line.split("#")[0]) if "for " not in line else line.split()
        absolute = [w for w in words if w.startswith("/") or "=/" in w]
        assert not absolute, f"an absolute path in the documented path: {line}"


def test_the_block_is_valid_bash() -> None:
    subprocess.run(["bash", "-n"], input=documented_block(README), text=True, check=True, timeout=30)


def test_the_plugin_block_runs_the_whole_flow_with_relative_paths() -> None:
    block = documented_block(PLUGIN_PAGE, PLUGIN_START, PLUGIN_END)
    subprocess.run(["bash", "-n"], input=block, text=True, check=True, timeout=30)
    lines = commands(block)
    steps = ("PYTHONPATH=examples", "$BASELINE --split calibration", "$TFIDF --split calibration",
             "-m harness freeze $BASELINE", "--hypothesis-baseline", "$BASELINE --split heldout",
             "$TFIDF --split heldout", "-m final --scifact-spend-heldout", "harness.validator", "--split heldout --run",
             "-m harness export", "-m harness report", "-m harness bundle")
    positions = [next(i for i, line in enumerate(lines) if step in line) for step in steps]
    assert positions == sorted(positions)
    assert not [w for line in lines for w in line.split() if w.startswith("/") or "=/" in w]


@pytest.mark.documented_path
def test_the_documented_path_runs_verbatim_from_the_clone_root() -> None:
    if not os.environ.get("SCIFACT_ARCHIVE"):
        pytest.fail("set SCIFACT_ARCHIVE as the README's quick start does", pytrace=False)
    for state in ("work-dir/store", "work-dir/results", "work-dir/bundle"):
        if (ROOT / state).exists():
            pytest.fail(f"{state} exists: the documented path is a new user's, run it on a fresh clone", pytrace=False)
    env = {k: v for k, v in os.environ.items() if k not in ("SCIFACT_WORK_DIR", "PYTEST_ADDOPTS")}
    result = subprocess.run(["bash", "-c", "set -euo pipefail\n" + documented_block(README)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=3600, check=False)
    output = result.stdout + result.stderr
    print(output)
    assert result.returncode == 0, output[-4000:]
    assert output.count("ELIGIBLE for a claim") == 9 and "NOT ELIGIBLE" not in output, output[-4000:]
    for shown in ("== SciFact results ==", "next, after committing: freeze the configuration",
                  "next: the held-out run", "then the bundle:", "bundle: work-dir/bundle",
                  "comparison ", "inputs ELIGIBLE under the validator", "after Holm",
                  "work-dir/results/report.html"):
        assert shown in output, shown
    assert "Loading weights" not in output and "Traceback" not in output
    _the_bundle_publishes_everything(ROOT / "work-dir" / "bundle")


def _the_bundle_publishes_everything(bundle: Path) -> None:
    """Validated comparisons, both reports (every table number against the bundled artifacts), TREC runs and qrels,
    per-query CSVs, each listed in MANIFEST.json."""
    splits, modes = ("calibration", "heldout", "all"), ("fts_only", "vector_only", "hybrid")
    listed = set(json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))["files"])
    expected = {"report.html", "report.md", "CLAIMS.md"}
    for split in splits:
        expected |= {f"artifacts/scifact-comparison-{split}.json", f"exports/scifact-{split}.qrels",
                     f"validation/comparisons/scifact-comparison-{split}.validation.json",
                     f"exports/scifact-per-query-{split}.csv"}
        expected |= {f"exports/scifact-{mode}-{split}.run" for mode in modes}
    assert expected <= listed, sorted(expected - listed)
    for split in splits:
        report = json.loads((bundle / f"validation/comparisons/scifact-comparison-{split}.validation.json").read_text())
        assert report["eligible"] is True, report
    assert check_report(bundle / "report.html", bundle / "artifacts") == ["heldout", "all", "calibration"]
    assert "## Comparisons" in (bundle / "CLAIMS.md").read_text(encoding="utf-8")


@pytest.mark.documented_path
def test_the_plugin_path_runs_verbatim_from_the_clone_root(tmp_path: Path) -> None:
    """After the publishing path (its fixture): the own-system block of docs/systems.md, as printed: the example and
    the built-in baseline through a declared hypothesis to a bundle holding a validated, confirmatory comparison
    between them."""
    if not (ROOT / "work-dir" / "scifact-corpus.json").is_file():
        pytest.fail("work-dir/scifact-corpus.json is missing: run the publishing path (or make calibration) first",
                    pytrace=False)
    for state in ("store-baseline", "results-baseline", "store-tfidf", "results-tfidf", "bundle-tfidf"):
        if (ROOT / "work-dir" / state).exists():
            pytest.fail(f"work-dir/{state} exists: run the plugin path on a fresh clone", pytrace=False)
    env = {k: v for k, v in os.environ.items() if k not in ("SCIFACT_WORK_DIR", "PYTEST_ADDOPTS", "PYTHONPATH")}
    # The page's reader has run `make calibration`, not the publishing path's held-out run: a record of their own,
    # else that earlier look at SciFact's held-out split rightly makes the declared pair exploratory.
    env[RECORD_VARIABLE] = str(tmp_path / "heldout-looks.sqlite3")
    block = documented_block(PLUGIN_PAGE, PLUGIN_START, PLUGIN_END)
    result = subprocess.run(["bash", "-c", "set -euo pipefail\n" + block], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=5400, check=False)
    output = result.stdout + result.stderr
    print(output)
    assert result.returncode == 0, output[-4000:]
    assert "Traceback" not in output
    assert output.count("ELIGIBLE for a claim") == 9 and "NOT ELIGIBLE" not in output, output[-4000:]
    assert "hypothesis declared: \"hybrid > fts_only\"" in output
    assert "[confirmatory] tfidf/hybrid \u2212 builtin/fts_only on held-out" in output, output[-4000:]
    bundle = ROOT / "work-dir" / "bundle-tfidf"
    listed = set(json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))["files"])
    runs = {f"artifacts/runs/{name}/scifact-{mode}-heldout.{kind}" for name in ("builtin", "tfidf")
            for mode in ("fts_only", "vector_only", "hybrid") for kind in ("jsonl", "aggregate.json")}
    assert {"artifacts/scifact-systems-heldout.json", "validation/comparisons/scifact-systems-heldout.validation.json",
            "artifacts/runs/builtin/freeze.json", "artifacts/runs/tfidf/freeze.json",
            "system-source/tfidf_hybrid.py"} | runs <= listed, sorted(listed)
    report = json.loads((bundle / "validation/comparisons/scifact-systems-heldout.validation.json").read_text())
    assert report["eligible"] is True, report
    document = json.loads((bundle / "artifacts/scifact-systems-heldout.json").read_text(encoding="utf-8"))
    [family] = document["hypotheses"]
    [hypothesis] = family["members"]
    assert (hypothesis["status"], hypothesis["pair"]) == ("confirmatory",
                                                          {"a": "tfidf/hybrid", "b": "builtin/fts_only"})
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert "## Systems compared" in claims and "tfidf-hybrid" in claims
    stated = ("The claim of superiority these runs support:" if hypothesis["result"]["supported"] else
              "No claim of superiority: no confirmatory hypothesis here is supported")
    assert stated in claims
    assert "Systems compared" in (bundle / "report.html").read_text(encoding="utf-8")

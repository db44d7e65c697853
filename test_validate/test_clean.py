"""The clean tiny artifacts pass every check; the CLI prints one line per check and a verdict, and exits 0/1/3."""

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.validator.core.report import ATTESTED, FAIL, NOT_VERIFIED, PASS, Report
from harness.validator.pipeline import validate

from . import forger
from .support import GIT_CHECKS, MODES, SPLITS, CleanRun, RunCopy, describe, failed_names

ROOT = Path(__file__).resolve().parent.parent
COMMON = (
    "json.strict", "aggregate.schema", "rows.sha256", "rows.count", "rows.schema", "rows.identity", "rows.results",
    "rows.metrics", "rows.search_receipts", "rows.request_ids", "aggregate.metrics", "receipt.measures",
    "aggregate.latency",
    "latency.contention",
    "aggregate.failures", "aggregate.result_counts", "aggregate.unique_docs", "aggregate.repeated_top1",
    "corpus.fixture", "corpus.vectors", "corpus.source_hashes", "corpus.payload_hashes", "corpus.pinned",
    "corpus.contract", "corpus.ir_datasets_id", "corpus.semantic_text", "corpus.name",
    "split.contract", "split.membership", "split.selected_ids", "split.counts", "rows.query_identity",
    "store.manifest", "store.parts", "store.live", "store.unchanged_by_run", "store.mapping_path", "store.mapping",
    "store.mapping_coverage", "rows.fact_ids", "store.vectors", "store.facts", "receipt.identity", "receipt.embedding",
    "config.sha256", "config.frozen_baseline", "config.top_k", "executable.interpreter", "source.harness",
    "system.source", "system.modules",
    "source.git", "source.clean", "dependencies", "machine.identity", "profile.contract", "embeddings.model",
    "corpus.schema", "ledger.file", "ledger.chain", "ledger.run", "freeze", "freeze.history", "heldout.record",
    "history.trials", "rows.measures",
    "rows.depth_ranking", "rows.depth_metrics", "aggregate.depth", "replay.depth",
)
DENSE = ("rows.exact_backend", "rows.query_vectors", "receipt.exact_backend")
BY_MODE = {"fts_only": ("rows.order", "replay.lexical"), "vector_only": (*DENSE, "rows.order", "replay.dense"),
           "hybrid": (*DENSE, "rows.fusion", "replay.lexical", "replay.dense", "replay.fusion")}
BY_SPLIT = {"calibration": (), "heldout": ("freeze.schema", "freeze.digest", "freeze.recorded",
                                                    "freeze.match")}
LINE = re.compile(r"^(PASS {8}|FAIL {8}|NOT VERIFIED|ATTESTED {4}) (\S+): (.+)$")
NOTE = re.compile(r"^(DATASET|ARCHIVE|STORED) +\S.*$")  # what the checks were held to (and whether the verdict
# was reused), after the check lines
ATTESTED_NAMES = ("history", "source.clean", "machine", "latency")  # source.clean: on a clean checkout


def git_head() -> str | None:
    result = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=False)
    return result.stdout.strip() if result.returncode == 0 else None


def recorded_clean_checkout(aggregate: dict[str, Any]) -> bool:
    git = aggregate["receipt"]["source"]["git"]
    return bool(git.get("available")) and git.get("dirty") is False and git.get("commit") == git_head()


def as_from_clean_checkout(copy: RunCopy, mode: str, split: str) -> Path:
    """Edit a copy's receipt to say the run started from a clean checkout of the current HEAD.

    The real receipts record this repository's git state, which is dirty while tests are being written;
    this edit lets the exit-code tests see an eligible run whatever the state of the work tree."""
    def clean(receipt: dict[str, Any]) -> None:
        empty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        receipt["source"]["git"].update(available=True, commit=git_head(), dirty=False, changed_paths=[],
                                        status_sha256=empty, diff_sha256=empty)
    copy.edit_receipt(mode, split, clean)
    return forger.rebind_source(copy, mode, split)  # the run ledger binds the source state the run started from


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.validator", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.real_model
@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("mode", MODES)
def test_clean_artifacts_pass_every_check(clean_run: CleanRun, mode: str, split: str) -> None:
    aggregate_path = clean_run.aggregate_path(mode, split)
    report = validate(aggregate_path)  # the embedding check on: re-embeds a sample with the packaged model
    names = [check.name for check in report.checks]
    dirty = json.loads(aggregate_path.read_bytes())["receipt"]["source"]["git"].get("dirty") is not False
    expected = [name for name in (*COMMON, *BY_MODE[mode], *BY_SPLIT[split]) if name != "source.clean" or dirty]
    assert sorted(names) == sorted(expected), names  # a clean tree's source.clean is ATTESTED, a dirty one's FAILs
    assert ("source.clean" in [c.name for c in report.attestations]) is not dirty
    assert len(set(names)) == len(names)
    unexpected = [c.line() for c in report.checks if c.status != PASS and c.name not in GIT_CHECKS]
    assert not unexpected, describe(report)
    assert next(c for c in report.checks if c.name == "embeddings.model").status == PASS
    if recorded_clean_checkout(json.loads(aggregate_path.read_text(encoding="utf-8"))):
        assert report.eligible, describe(report)
        assert report.exit_code() == 0
    else:  # a dirty work tree is recorded and only source.clean may object to it
        assert failed_names(report) <= {"source.clean"}, describe(report)


def parse_cli_output(stdout: str) -> tuple[list[tuple[str, str]], str]:
    lines = stdout.splitlines()
    assert len(lines) >= 2, stdout
    *check_lines, verdict = lines
    parsed = []
    for line in check_lines:
        if NOTE.match(line):
            continue
        match = LINE.match(line)
        assert match, f"not a check line: {line!r}"
        parsed.append((match.group(2), match.group(1).strip().lower()))
    assert re.match(r"^(ELIGIBLE for a claim: all \d+ checks passed; attested, not provable here: [a-z., ]+"
                    r"|NOT ELIGIBLE for a claim: \d+ failed, \d+ not verified, \d+ passed) — \S+aggregate\.json$",
                    verdict), verdict
    return parsed, verdict.rsplit(" — ", 1)[0]  # the verdict, without the file it names


def assert_json_report(path: Path, printed: list[tuple[str, str]], verdict: str, report: Report) -> None:
    written = json.loads(path.read_text(encoding="utf-8"))
    assert set(written) == {"subject", "eligible", "verdict", "notes", "checks", "attested"}
    assert written["verdict"] == verdict
    assert written["eligible"] is verdict.startswith("ELIGIBLE")
    assert [(c["name"], c["status"]) for c in written["checks"] + written["attested"]] == printed
    assert all(set(c) == {"name", "status", "detail", "expected", "found"} for c in written["checks"])
    assert [(c.name, c.status) for c in report.checks + report.attestations] == printed  # the CLI and the API agree


@pytest.mark.real_model
def test_cli_prints_one_line_per_check_then_the_verdict_and_writes_json(run_copy: RunCopy, tmp_path: Path) -> None:
    aggregate = as_from_clean_checkout(run_copy, "hybrid", "calibration")
    result = run_cli(aggregate, "--json", tmp_path / "report.json")
    printed, verdict = parse_cli_output(result.stdout)
    report = validate(aggregate)
    assert_json_report(tmp_path / "report.json", printed, verdict, report)
    assert report.eligible, describe(report)
    checks = [name for name, status in printed if status != ATTESTED]
    assert [name for name, status in printed if status == ATTESTED] == list(ATTESTED_NAMES)
    assert verdict == (f"ELIGIBLE for a claim: all {len(checks)} checks passed; attested, not provable here: "
                       f"{', '.join(ATTESTED_NAMES)}")
    assert result.returncode == 0, result.stdout + result.stderr


def test_cli_exit_code_is_7_when_only_not_verified(run_copy: RunCopy) -> None:
    aggregate = as_from_clean_checkout(run_copy, "fts_only", "calibration")
    result = run_cli(aggregate, "--no-embedding-check")
    printed, verdict = parse_cli_output(result.stdout)
    assert [name for name, status in printed if status not in (PASS, ATTESTED)] == ["embeddings.model"], result.stdout
    assert dict(printed)["embeddings.model"] == NOT_VERIFIED
    assert verdict.startswith("NOT ELIGIBLE for a claim: 0 failed, 1 not verified")
    assert result.returncode == 7, result.stdout + result.stderr


def test_cli_exit_code_is_1_when_a_check_fails(run_copy: RunCopy, tmp_path: Path) -> None:
    aggregate = run_copy.edit_receipt("fts_only", "calibration",
                                      lambda r: r["retrieval"]["config"].update(top_k=5))
    result = run_cli(aggregate, "--no-embedding-check", "--json", tmp_path / "report.json")
    printed, verdict = parse_cli_output(result.stdout)
    assert dict(printed)["config.sha256"] == FAIL
    assert verdict.startswith("NOT ELIGIBLE for a claim:")
    assert result.returncode == 1, result.stdout + result.stderr
    assert_json_report(tmp_path / "report.json", printed, verdict, validate(aggregate, embeddings=False))


def test_cli_reports_the_real_dirty_or_clean_state_of_the_clean_run(clean_run: CleanRun) -> None:
    """Unedited artifacts: exit 7 from a clean checkout (embeddings skipped), 1 if the tree was dirty."""
    aggregate = clean_run.aggregate_path("vector_only", "heldout")
    result = run_cli(aggregate, "--no-embedding-check")
    printed, _ = parse_cli_output(result.stdout)
    failed = {name for name, status in printed if status == FAIL}
    assert failed <= GIT_CHECKS, result.stdout
    assert result.returncode == (1 if failed else 7), result.stdout + result.stderr


def test_missing_inputs_are_reported_not_raised(tmp_path: Path) -> None:
    report = validate(tmp_path / "nothing.aggregate.json", embeddings=False)
    assert failed_names(report) == {"inputs"}
    assert report.exit_code() == 1

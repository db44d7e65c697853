"""Every configuration tried is counted, from a sweep to the reader's verdict, on the tiny corpus as a user types it:
a 12-configuration sweep, the chosen configuration's calibration run, its freeze, held-out run and bundle. The freeze
record counts 12 configurations, CLAIMS.md and the report say so, and the bundle's reader recounts them from the
ledger the bundle carries: ELIGIBLE. One sweep event removed and the rest chained again fails `history.trials`; removed
without chaining again, `ledger.chain`; a doctored count in CLAIMS.md, `texts.figures`. A configuration outside the
grid makes 13; one frozen without its calibration run is said not to be among them."""

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import tiny_archive
from fixtures.bundle_reader import fresh_reader, reseal
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.cli import Uncaptured, run_tiny_cli
from harness.evaluation.history.ledger import LEDGER
from harness.publish.bundle import make_bundle
from harness.publish.text.trials_words import trials_statement
from harness.validator.cli import main

from .support import CleanRun, history_rows, rechain_history, writable_history

pytestmark = pytest.mark.real_model

GRID = {"parameters": {"rrf_k": [20, 40, 60], "lexical.k1": [0.9, 1.2, 1.5, 1.8]}}
TWELVE = "chosen from 12 configurations tried on calibration (36 sweep evaluations, 3 calibration runs)"


def _cli(*argv: str) -> None:
    outcome = run_tiny_cli(list(argv), Uncaptured())
    assert outcome.code == 0, (argv, outcome)


def _swept(root: Path, corpus: Path, grid: dict[str, Any] = GRID) -> list[str]:
    """A sweep of `grid` into root/store and root/out; the options every later command repeats."""
    (root / "grid.json").write_text(json.dumps(grid), encoding="utf-8")
    place = ["--corpus", str(corpus), "--store-dir", str(root / "store"), "--output-dir", str(root / "out")]
    _cli("sweep", "--grid", str(root / "grid.json"), *place)
    return place


def _config_file(root: Path, index: int) -> str:
    return str(root / "out" / "tiny-test-sweep-configurations" / f"configuration-{index:02d}.json")


def _freeze(root: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((root / "out" / "freeze.json").read_text(encoding="utf-8"))
    return value


@pytest.fixture(scope="module")
def bundle(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole path once: sweep, the best configuration's calibration, freeze, held-out, bundle."""
    root = tmp_path_factory.mktemp("swept")
    place = _swept(root, clean_run.fixture_path)
    swept = json.loads((root / "out" / "tiny-test-sweep-calibration.json").read_text(encoding="utf-8"))
    chosen = _config_file(root, swept["best"]["hybrid"]["index"])
    _cli("run", *place, "--split", "calibration", "--config", chosen, "--no-validate")
    _cli("freeze", *place, "--config", chosen, "--allow-dirty")
    _cli("run", *place, "--split", "heldout", "--config", chosen, "--no-validate")
    mark_clean_checkout(root / "out")
    return make_bundle(root / "out", root / "bundle", archive=tiny_archive(root / "tiny.zip"))


def _judge(bundle: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--bundle", str(bundle), "--archive", str(tiny_archive(tmp_path / "tiny.zip"))])
    return code, capsys.readouterr().out


def _lines(out: str, check: str) -> list[str]:
    return [line for line in out.splitlines() if f" {check}:" in line]


def test_the_honest_bundle_counts_twelve_and_is_eligible(bundle: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    block = json.loads((bundle / "freeze.json").read_text(encoding="utf-8"))["calibration_trials"]
    assert (block["configurations"], block["sweep_events"], block["calibration_runs"]) == (12, 36, 3)
    assert block["frozen_configuration_tried"] is True and block["calibration_runs_unrecorded"] == 0
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    what_was_run = claims.split("## What was run", 1)[1].split("## Results", 1)[0]
    assert f"- Calibration trials: {TWELVE}" in what_was_run
    chosen = json.loads((bundle / "artifacts" / "tiny-test-hybrid-heldout.aggregate.json").read_text(
        encoding="utf-8"))["receipt"]["retrieval"]["config"]
    changed = ", ".join(f"{name} {value}" for name, value in (("lexical.k1", chosen["lexical"]["k1"]),
                                                              ("rrf_k", chosen["rrf_k"])) if (name, value) not in
                        (("lexical.k1", 1.5), ("rrf_k", 60)))  # the defaults
    assert f"(`configuration.json`); the built-in defaults{' but ' + changed if changed else ''}\n" in what_was_run
    assert TWELVE in (bundle / "report.md").read_text(encoding="utf-8")
    assert TWELVE in (bundle / "report.html").read_text(encoding="utf-8")
    fresh_reader(tmp_path, monkeypatch)
    code, out = _judge(bundle, capsys, tmp_path)
    assert code == 0, out
    assert out.splitlines()[-1].startswith("BUNDLE       ELIGIBLE for a claim"), out
    trials = [line for line in _lines(out, "history.trials") if not line.startswith("ATTESTED")]
    assert trials and all(line.startswith("PASS") for line in trials), trials
    held_out = [line for line in trials if "12 configurations tried on calibration (36 sweep events, 3" in line]
    assert len(held_out) == 3, trials  # each held-out aggregate recounts them; a calibration one has no freeze yet
    assert any(line.startswith("ATTESTED") for line in _lines(out, "history.trials"))


def _without_one_sweep_event(bundle: Path, tmp_path: Path, *, chain_again: bool) -> Path:
    forged = Path(shutil.copytree(bundle, tmp_path / "forged"))
    store = forged / "inputs" / "store"
    rows = history_rows(store)
    position = next(position for position, text, _, _ in rows if '"event":"sweep-configuration"' in text)
    if chain_again:
        rechain_history(store, [json.loads(text) for p, text, _, _ in rows if p != position])
    else:
        with closing(writable_history(store)) as connection:
            connection.execute("DELETE FROM history WHERE position = ?", (position,))
    for leftover in store.glob(LEDGER + "-*"):
        leftover.unlink()
    reseal(forged)
    return forged


def test_a_sweep_event_removed_and_the_rest_chained_again_fails_the_count(bundle: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    forged = _without_one_sweep_event(bundle, tmp_path, chain_again=True)
    fresh_reader(tmp_path, monkeypatch)
    code, out = _judge(forged, capsys, tmp_path)
    assert code == 1 and "NOT ELIGIBLE" in out.splitlines()[-1], out
    failed = [line for line in _lines(out, "history.trials") if line.startswith("FAIL")]
    assert failed and "sweep_events: the record states 36, the ledger gives 35" in failed[0], failed
    assert all(line.startswith("PASS") for line in _lines(out, "ledger.chain")), "the chain itself is consistent"


def test_a_sweep_event_removed_without_chaining_again_breaks_the_chain(bundle: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    forged = _without_one_sweep_event(bundle, tmp_path, chain_again=False)
    fresh_reader(tmp_path, monkeypatch)
    code, out = _judge(forged, capsys, tmp_path)
    assert code == 1 and "NOT ELIGIBLE" in out.splitlines()[-1], out
    chain = _lines(out, "ledger.chain")
    assert chain and all(line.startswith("FAIL") for line in chain), chain


def test_a_count_doctored_in_claims_fails_the_texts_check(bundle: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    doctored = Path(shutil.copytree(bundle, tmp_path / "doctored"))
    claims = doctored / "CLAIMS.md"
    claims.write_text(claims.read_text(encoding="utf-8").replace(TWELVE, TWELVE.replace("12 configurations",
                                                                                      "4 configurations")),
                      encoding="utf-8")
    reseal(doctored)
    fresh_reader(tmp_path, monkeypatch)
    code, out = _judge(doctored, capsys, tmp_path)
    assert code == 1, out
    texts = [line for line in _lines(out, "texts.figures") if line.startswith("FAIL")]
    assert any("CLAIMS.md" in line and "the count of configurations tried on calibration" in line
               and "shows 4 36 3 0" in line for line in texts), texts


def test_a_configuration_outside_the_grid_makes_thirteen(clean_run: CleanRun, tmp_path: Path) -> None:
    place = _swept(tmp_path, clean_run.fixture_path)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"rrf_k": 50, "lexical": {"k1": 1.2}}), encoding="utf-8")
    _cli("run", *place, "--split", "calibration", "--config", str(outside), "--no-validate")
    _cli("freeze", *place, "--config", str(outside), "--allow-dirty")
    block = _freeze(tmp_path)["calibration_trials"]
    assert (block["configurations"], block["sweep_events"], block["calibration_runs"]) == (13, 36, 3)
    statement = trials_statement(_freeze(tmp_path))
    assert statement is not None and "chosen from 13 configurations tried on calibration" in statement


def test_a_configuration_frozen_without_its_calibration_is_not_among_them(clean_run: CleanRun,
                                                                          tmp_path: Path) -> None:
    place = _swept(tmp_path, clean_run.fixture_path, {"parameters": {"rrf_k": [20, 40]}})
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"rrf_k": 50}), encoding="utf-8")
    # the store built by a calibration run of the grid's first configuration, in one mode
    _cli("run", *place, "--split", "calibration", "--mode", "fts_only", "--config", _config_file(tmp_path, 1),
         "--no-validate")
    _cli("freeze", *place, "--mode", "hybrid", "--config", str(outside), "--allow-dirty",
         "--allow-failed-calibration")
    block = _freeze(tmp_path)["calibration_trials"]
    assert (block["configurations"], block["calibration_runs"], block["frozen_configuration_tried"]) == (2, 1, False)
    statement = trials_statement(_freeze(tmp_path))
    assert statement is not None and "The frozen configuration is not among them" in statement


def test_an_earlier_ledger_without_configuration_digests_is_a_lower_bound(clean_run: CleanRun, tmp_path: Path) -> None:
    """A calibration run recorded before run-started events carried the configuration's digest: accepted, and the
    count says it is a lower bound."""
    place = ["--corpus", str(clean_run.fixture_path), "--store-dir", str(tmp_path / "store"), "--output-dir",
             str(tmp_path / "out")]
    _cli("run", *place, "--split", "calibration", "--mode", "fts_only", "--no-validate")
    events = [json.loads(text) for _, text, _, _ in history_rows(tmp_path / "store")]
    for event in events:
        event.pop("configuration_sha256", None)
    rechain_history(tmp_path / "store", events)
    with closing(sqlite3.connect(tmp_path / "store" / LEDGER)) as connection:
        assert connection.execute("SELECT COUNT(*) FROM history").fetchone() == (2,)
    _cli("run", *place, "--split", "calibration", "--mode", "hybrid", "--no-validate")
    _cli("freeze", *place, "--allow-dirty", "--allow-failed-calibration", "--mode", "hybrid")
    block = _freeze(tmp_path)["calibration_trials"]
    assert (block["configurations"], block["calibration_runs"], block["calibration_runs_unrecorded"]) == (1, 2, 1)
    statement = trials_statement(_freeze(tmp_path))
    assert statement is not None and "chosen from at least 1 configuration" in statement
    assert "1 of them without a recorded configuration" in statement

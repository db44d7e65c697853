"""The freeze gate on the tiny corpus: held-out runs only against an unchanged, frozen configuration, and only
in turn in the store's history (the run ledger)."""

import hashlib
import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import TINY_DATASET
from fixtures.cli import contract_patches
from harness.cli import app as cli
from harness.cli import commands
from harness.corpus.contract import Contract
from harness.errors import HarnessError
from harness.evaluation.gates.freeze import FREEZE_NAME, FreezeError, Frozen, current_record, freeze_configuration
from harness.evaluation.history import ledger
from harness.evaluation.receipts import provenance
from harness.evaluation.receipts import receipt as receipt_module
from harness.evaluation.receipts.artifacts import aggregate_name, rows_name
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import run_mode
from harness.fixture.corpus_fixture import CorpusFixture
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import Store, build_store
from harness.systems.builtin.system import BuiltinSystem


@pytest.fixture
def store(tiny_corpus: CorpusFixture, tiny: Contract, store_dir: Path) -> Store:
    return build_store(store_dir, tiny_corpus, tiny.namespace, SearchConfig().lexical)[0]


def _freeze(corpus: CorpusFixture, store: Store, contract: Contract, output: Path, *, modes: tuple[str, ...] = MODES,
            config: SearchConfig | None = None, replace: bool = False) -> Frozen:
    """These tests are about what follows a freeze and calibrate nothing first, so the freeze is told to go ahead
    without calibration receipts (test_calibration_gate.py holds that gate)."""
    return freeze_configuration(fixture=corpus, system=BuiltinSystem(store, config or SearchConfig()),
                                contract=contract, modes=modes, output_dir=output, argv=["test"], allow_dirty=True,
                                replace=replace, allow_failed_calibration=True)


def _evaluate(corpus: CorpusFixture, store: Store, contract: Contract, output: Path, split: str = "heldout",
              **kwargs: Any) -> list[Any]:
    return run_split(Evaluation(corpus=corpus.path, store_dir=store.directory, output_dir=output, split=split,
                               **kwargs), contract)


def _heldout(corpus: CorpusFixture, store: Store, contract: Contract, output: Path, **kwargs: Any) -> list[Any]:
    return _evaluate(corpus, store, contract, output, "heldout", **kwargs)


def _history(store: Store) -> list[ledger.HistoryEvent]:
    return ledger.history(store.directory)


def _delete_heldout_receipts(output: Path) -> None:
    for mode in MODES:
        for name in (rows_name(TINY_DATASET, mode, "heldout"), aggregate_name(TINY_DATASET, mode, "heldout")):
            (output / name).unlink(missing_ok=True)


def test_heldout_without_a_freeze_is_refused(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                             tmp_path: Path) -> None:
    with pytest.raises(FreezeError, match="no freeze record"):
        _heldout(tiny_corpus, store, tiny, tmp_path)
    assert not list(tmp_path.glob("*.jsonl"))


def test_heldout_runs_against_the_freeze_and_records_it(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                        tmp_path: Path) -> None:
    frozen = _freeze(tiny_corpus, store, tiny, tmp_path)
    runs = _heldout(tiny_corpus, store, tiny, tmp_path)
    assert [run.mode for run in runs] == list(MODES)
    started = {e.event["run_id"]: e.ref.to_dict() for e in _history(store) if e.kind == "run-started"}
    for run in runs:
        receipt = run.aggregate["receipt"]
        assert receipt["freeze"] == {"file": FREEZE_NAME, "sha256": frozen.record["freeze_sha256"]}
        assert receipt["ledger"] == {"file": ledger.LEDGER, "rule": ledger.CHAIN_RULE,
                                     "run_started": started[receipt["run"]["run_id"]],
                                     "freeze": frozen.event.to_dict()}


def test_the_freeze_appends_a_chained_event_to_the_store_history(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                  store: Store, tmp_path: Path) -> None:
    _evaluate(tiny_corpus, store, tiny, tmp_path, "calibration", modes=("fts_only",))
    frozen = _freeze(tiny_corpus, store, tiny, tmp_path, modes=("fts_only", "hybrid"))
    with closing(sqlite3.connect(store.directory / ledger.LEDGER)) as connection:
        rows = connection.execute("SELECT position, event, previous_digest, digest FROM history ORDER BY position")
        history = rows.fetchall()
    previous = "sha256:" + "0" * 64
    for position, (found_position, text, found_previous, digest) in enumerate(history, start=1):
        assert (found_position, found_previous) == (position, previous)
        assert digest == "sha256:" + hashlib.sha256(f"{previous}\n{text}".encode()).hexdigest()
        value = json.loads(text)
        assert text == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        previous = digest
    kinds = [json.loads(text)["event"] for _, text, _, _ in history]
    assert kinds == ["run-started", "run-finished", "freeze"]
    assert json.loads(history[2][1]) == {"event": "freeze", "freeze_sha256": frozen.record["freeze_sha256"],
                                         "modes": ["fts_only", "hybrid"], "created_at": frozen.record["created_at"],
                                         "output_dir": str(tmp_path)}
    assert frozen.event == ledger.EventRef(3, history[2][3])


def test_the_history_is_append_only(tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path)
    with closing(sqlite3.connect(store.directory / ledger.LEDGER, isolation_level=None)) as connection:
        for statement in ("UPDATE history SET event = '{}' WHERE position = 1", "DELETE FROM history"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                connection.execute(statement)


def test_a_changed_configuration_is_refused_by_field(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                     tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path)
    with pytest.raises(FreezeError, match=r"search_config\.rrf_k \(frozen 60, now 30\).*Next: set rrf_k back to 60 "
                                          r"\(the configuration frozen, at the harness's commit \w+: git checkout \w+ "
                                          r"in its clone\); or calibrate again"):
        _heldout(tiny_corpus, store, tiny, tmp_path, config=SearchConfig(rrf_k=30))


def test_another_store_is_refused(tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    """Another store of the same fixture (another insertion order, so other fact ids): its digests differ."""
    _freeze(tiny_corpus, store, tiny, tmp_path / "out")
    other, _ = build_store(tmp_path / "other", tiny_corpus, tiny.namespace, SearchConfig().lexical,
                           insertion_order=list(reversed(range(len(tiny_corpus.data["documents"])))))
    with pytest.raises(FreezeError, match=r"store\.(mapping|store)_sha256 .*Next: pass --store-dir the store frozen"):
        _heldout(tiny_corpus, other, tiny, tmp_path / "out")


def test_a_mode_that_was_not_frozen_is_refused(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                               tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path, modes=("fts_only",))
    with pytest.raises(FreezeError, match="mode 'hybrid' was not frozen"):
        _heldout(tiny_corpus, store, tiny, tmp_path, modes=("hybrid",))


def test_an_edited_freeze_record_is_refused(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                            tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path)
    path = tmp_path / FREEZE_NAME
    record = json.loads(path.read_text())
    record["search_config"]["rrf_k"] = 30
    path.write_text(json.dumps(record))
    with pytest.raises(FreezeError, match="edited after freezing"):
        _heldout(tiny_corpus, store, tiny, tmp_path)


def test_the_freeze_cannot_be_rewritten_after_a_heldout_receipt(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                 store: Store, tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path)
    with pytest.raises(FreezeError, match="--replace"):
        _freeze(tiny_corpus, store, tiny, tmp_path)
    _freeze(tiny_corpus, store, tiny, tmp_path, replace=True)  # allowed: no held-out run yet
    assert len(list((tmp_path / "superseded").rglob(FREEZE_NAME))) == 1
    _heldout(tiny_corpus, store, tiny, tmp_path, modes=("fts_only",))
    before = (tmp_path / FREEZE_NAME).read_bytes()
    with pytest.raises(FreezeError, match="cannot be rewritten after held-out evaluation"):
        _freeze(tiny_corpus, store, tiny, tmp_path, replace=True)
    assert (tmp_path / FREEZE_NAME).read_bytes() == before


def test_a_freeze_after_a_heldout_run_is_refused_whatever_files_exist(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                     store: Store, tmp_path: Path) -> None:
    """The forger's path: held-out, receipts deleted, `freeze --replace`. The history still holds the run."""
    _freeze(tiny_corpus, store, tiny, tmp_path)
    [run] = _heldout(tiny_corpus, store, tiny, tmp_path, modes=("fts_only",))
    _delete_heldout_receipts(tmp_path)
    before, history = (tmp_path / FREEZE_NAME).read_bytes(), _history(store)
    started = run.aggregate["receipt"]["run"]["started_at"]
    with pytest.raises(ledger.HistoryError, match=rf"held-out run tiny-test/fts_only/heldout/run-1 was started on "
                                                  rf"this store at {started}.*new store directory"):
        _freeze(tiny_corpus, store, tiny, tmp_path, replace=True)
    with pytest.raises(ledger.HistoryError, match="held-out run tiny-test/fts_only/heldout/run-1"):
        _freeze(tiny_corpus, store, tiny, tmp_path / "elsewhere")  # another output directory: same store
    assert (tmp_path / FREEZE_NAME).read_bytes() == before
    assert not (tmp_path / "superseded").exists() and not (tmp_path / "elsewhere").exists()
    assert _history(store) == history


def test_the_cli_refuses_the_forgers_freeze_with_one_line(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    for name, look_up in contract_patches(lambda: tiny).items():
        monkeypatch.setattr(commands, name, look_up)
    argv = ["freeze", "--corpus", str(tiny_corpus.path), "--store-dir", str(store.directory), "--output-dir",
            str(tmp_path), "--allow-dirty", "--allow-failed-calibration"]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out.startswith(f"frozen: {tmp_path / FREEZE_NAME}")
    _heldout(tiny_corpus, store, tiny, tmp_path, modes=("vector_only",))
    _delete_heldout_receipts(tmp_path)
    assert cli.main([*argv, "--replace"]) == 3  # refused by a gate
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: the freeze is refused: held-out run tiny-test/vector_only/heldout/run-1 was "
                          "started on this store at ")


def test_a_legacy_ledger_with_heldout_runs_but_no_history_refuses_the_freeze(
    tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path
) -> None:
    with closing(sqlite3.connect(store.directory / ledger.LEDGER, isolation_level=None)) as connection:
        connection.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, mode TEXT NOT NULL, split TEXT NOT NULL, "
                           "sequence INTEGER NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, "
                           "status TEXT NOT NULL, UNIQUE (mode, split, sequence))")
        connection.execute("INSERT INTO runs VALUES ('tiny-test/hybrid/all/run-1', 'hybrid', 'all', 1, "
                           "'2020-01-01T00:00:00Z', NULL, 'running')")
    with pytest.raises(ledger.HistoryError, match="all-query run tiny-test/hybrid/all/run-1 was started on this "
                                                  "store at 2020-01-01T00:00:00Z"):
        _freeze(tiny_corpus, store, tiny, tmp_path)
    assert _history(store) == [] and not (tmp_path / FREEZE_NAME).exists()


def test_a_second_heldout_run_of_a_mode_is_refused_up_front(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                            tmp_path: Path) -> None:
    frozen = _freeze(tiny_corpus, store, tiny, tmp_path)
    [first] = _heldout(tiny_corpus, store, tiny, tmp_path, modes=("hybrid",))
    artifacts = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    history = _history(store)
    message = (r"a held-out run of hybrid was already started on this store \(tiny-test/hybrid/heldout/run-1, "
               rf"started {first.aggregate['receipt']['run']['started_at']}\): a held-out receipt counts only for "
               r"the first held-out run of a mode after the freeze.*new store directory.*new output directory")
    with pytest.raises(ledger.HistoryError, match=message):
        _heldout(tiny_corpus, store, tiny, tmp_path, modes=("hybrid",), replace=True)
    with pytest.raises(ledger.HistoryError, match=message):  # all three modes: refused before the first one runs
        _heldout(tiny_corpus, store, tiny, tmp_path, replace=True)
    with pytest.raises(ledger.HistoryError, match=message):  # the runner itself, with a genuine freeze reference
        run_mode(mode="hybrid", split="heldout", fixture=tiny_corpus, contract=tiny,
                 system=BuiltinSystem(store, SearchConfig()), top_k=10, output_dir=tmp_path, replace=True,
                 argv=["test"], freeze={"path": str(frozen.path), "sha256": frozen.record["freeze_sha256"]})
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == artifacts
    assert not (tmp_path / "superseded").exists()
    assert _history(store) == history


def test_all_query_runs_follow_the_heldout_ones_once(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                    tmp_path: Path) -> None:
    frozen = _freeze(tiny_corpus, store, tiny, tmp_path)
    _heldout(tiny_corpus, store, tiny, tmp_path, modes=("fts_only",))
    [run] = _evaluate(tiny_corpus, store, tiny, tmp_path, "all", modes=("fts_only",))
    assert run.aggregate["receipt"]["ledger"]["freeze"] == frozen.event.to_dict()
    with pytest.raises(ledger.HistoryError, match=r"an all-query run of fts_only was already started on this store "
                                                  r"\(tiny-test/fts_only/all/run-1"):
        _evaluate(tiny_corpus, store, tiny, tmp_path, "all", modes=("fts_only",), replace=True)


def test_a_fresh_store_and_a_fresh_freeze_allow_a_new_heldout_run(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                  store: Store, tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path / "out")
    _heldout(tiny_corpus, store, tiny, tmp_path / "out", modes=("fts_only",))
    fresh, _ = build_store(tmp_path / "fresh-store", tiny_corpus, tiny.namespace, SearchConfig().lexical)
    _evaluate(tiny_corpus, fresh, tiny, tmp_path / "fresh-out", "calibration", modes=("fts_only",))
    frozen = _freeze(tiny_corpus, fresh, tiny, tmp_path / "fresh-out")
    [run] = _heldout(tiny_corpus, fresh, tiny, tmp_path / "fresh-out", modes=("fts_only",))
    assert run.aggregate["receipt"]["run"]["run_id"] == "tiny-test/fts_only/heldout/run-1"
    assert run.aggregate["receipt"]["ledger"]["freeze"] == frozen.event.to_dict()


def test_calibration_runs_before_and_after_the_freeze_are_fine(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                store: Store, tmp_path: Path) -> None:
    _evaluate(tiny_corpus, store, tiny, tmp_path, "calibration", modes=("vector_only",))
    _freeze(tiny_corpus, store, tiny, tmp_path)
    _evaluate(tiny_corpus, store, tiny, tmp_path, "calibration", modes=("vector_only",), replace=True)
    _heldout(tiny_corpus, store, tiny, tmp_path, modes=("vector_only",))
    [run] = _evaluate(tiny_corpus, store, tiny, tmp_path, "calibration", modes=("vector_only",), replace=True)
    assert run.aggregate["receipt"]["run"]["sequence"] == 3
    assert run.aggregate["receipt"]["ledger"]["freeze"] is None
    kinds = [(e.kind, e.event.get("split")) for e in _history(store) if e.kind != "run-finished"]
    assert kinds == [("run-started", "calibration"), ("freeze", None), ("run-started", "calibration"),
                     ("run-started", "heldout"), ("run-started", "calibration")]


def test_a_freeze_record_written_by_hand_is_refused_by_the_runner(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                   store: Store, tmp_path: Path) -> None:
    record = current_record(fixture=tiny_corpus, system=BuiltinSystem(store, SearchConfig()), contract=tiny,
                            modes=MODES, argv=["by hand"], allow_dirty=True)
    (tmp_path / FREEZE_NAME).write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ledger.HistoryError, match=rf"records no freeze {record['freeze_sha256']}"):
        _heldout(tiny_corpus, store, tiny, tmp_path)
    assert not list(tmp_path.glob("*.jsonl"))
    assert _history(store) == []


def test_only_the_latest_freeze_gates_heldout(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                              tmp_path: Path) -> None:
    old = _freeze(tiny_corpus, store, tiny, tmp_path / "a")
    new = _freeze(tiny_corpus, store, tiny, tmp_path / "b", modes=("fts_only",))
    with pytest.raises(ledger.HistoryError, match=rf"freeze {old.record['freeze_sha256']} is not the latest freeze "
                                                  rf"on this store: freeze {new.record['freeze_sha256']} \(ledger "
                                                  rf"position 2.*{re.escape(str(tmp_path / 'b'))}"):
        _heldout(tiny_corpus, store, tiny, tmp_path / "a", modes=("fts_only",))
    _heldout(tiny_corpus, store, tiny, tmp_path / "b", modes=("fts_only",))


def test_a_run_that_fails_is_recorded_and_still_counts(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path)

    def broken() -> dict[str, Any]:
        raise RuntimeError("the claim boundary fell over")
    with monkeypatch.context() as patch:
        patch.setattr(receipt_module, "claim_boundary", broken)
        with pytest.raises(RuntimeError, match="fell over"):
            _heldout(tiny_corpus, store, tiny, tmp_path, modes=("fts_only",))
    assert _history(store)[-1].event["status"] == "failed"
    with pytest.raises(ledger.HistoryError, match="already started on this store"):
        _heldout(tiny_corpus, store, tiny, tmp_path, modes=("fts_only",), replace=True)
    with pytest.raises(ledger.HistoryError, match="the freeze is refused"):
        _freeze(tiny_corpus, store, tiny, tmp_path, replace=True)


def test_a_dirty_tree_is_refused_unless_allowed_and_then_recorded(
    tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dirty = {"available": True, "commit": "0" * 40, "dirty": True, "diff_sha256": "sha256:" + "1" * 64,
             "status_sha256": "sha256:" + "2" * 64, "changed_paths": ["x.py"]}
    monkeypatch.setattr(provenance, "git_state", lambda root=None: dirty)
    with pytest.raises(FreezeError, match="has changes") as refused:
        freeze_configuration(fixture=tiny_corpus, system=BuiltinSystem(store, SearchConfig()), contract=tiny,
                             modes=MODES, output_dir=tmp_path, argv=[], allow_dirty=False, replace=False,
                             allow_failed_calibration=True)
    assert "work tree" in str(refused.value) and "(x.py)" in str(refused.value), refused.value
    assert ".gitignore" in str(refused.value) and "--allow-dirty" in str(refused.value)
    assert _history(store) == []
    freeze_configuration(fixture=tiny_corpus, system=BuiltinSystem(store, SearchConfig()), contract=tiny, modes=MODES,
                         output_dir=tmp_path, argv=[], allow_dirty=True, replace=False, allow_failed_calibration=True)
    saved = json.loads((tmp_path / FREEZE_NAME).read_text())
    assert saved["source"]["git"]["dirty"] is True
    assert "not eligible" in saved["source"]["dirty_state_policy"]


def _copy_fixture(corpus: CorpusFixture, directory: Path, change: Any = None) -> Path:
    """The fixture and its sidecar under another directory; `change` edits the fixture's JSON first."""
    directory.mkdir(parents=True)
    data = json.loads(corpus.path.read_text(encoding="utf-8"))
    if change is not None:
        change(data)
    (directory / corpus.path.name).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    sidecar = corpus.path.parent / data["vectors"]["file"]
    (directory / sidecar.name).write_bytes(sidecar.read_bytes())
    return directory / corpus.path.name


def test_identity_is_content_a_relative_spelling_or_a_moved_copy_is_the_same_freeze(
        tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Frozen with absolute paths; held-out given relative paths, then a byte-identical copy elsewhere."""
    output = tmp_path / "out"
    _freeze(tiny_corpus, store, tiny, output)
    monkeypatch.chdir(tiny_corpus.path.parent.parent)
    relative = Path(tiny_corpus.path.parent.name) / tiny_corpus.path.name
    assert not relative.is_absolute() and relative.resolve() == tiny_corpus.path.resolve()
    run_split(Evaluation(corpus=relative, store_dir=store.directory, output_dir=output, split="heldout",
                        modes=("fts_only",)), tiny)
    moved = _copy_fixture(tiny_corpus, tmp_path / "moved-work-dir")
    run_split(Evaluation(corpus=moved, store_dir=store.directory, output_dir=output, split="heldout",
                        modes=("vector_only",)), tiny)
    frozen = json.loads((output / FREEZE_NAME).read_text(encoding="utf-8"))
    assert (frozen["corpus"]["fixture_file"], frozen["store"]["directory_name"]) == (tiny_corpus.path.name,
                                                                                      store.directory.name)


def test_a_different_fixture_under_the_frozen_name_is_refused_by_name(
        tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    output = tmp_path / "out"
    _freeze(tiny_corpus, store, tiny, output)

    def edit(data: dict[str, Any]) -> None:
        data["documents"][0]["text"] += " (edited)"
    impostor = _copy_fixture(tiny_corpus, tmp_path / "impostor", edit)
    assert impostor.name == tiny_corpus.path.name
    with pytest.raises(HarnessError, match="fixture_sha256"):
        run_split(Evaluation(corpus=impostor, store_dir=store.directory, output_dir=output, split="heldout",
                            modes=("fts_only",)), tiny)
    assert not (output / aggregate_name(TINY_DATASET, "fts_only", "heldout")).exists()

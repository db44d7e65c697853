"""The freeze gate on the tiny corpus: held-out runs only against an unchanged, frozen configuration."""

import json
from pathlib import Path
from typing import Any

import pytest

from harness import provenance
from harness.contract import Contract
from harness.evaluate import Evaluation, evaluate
from harness.fixture import CorpusFixture
from harness.freeze import FREEZE_NAME, FreezeError, current_record, write_freeze
from harness.retrieval.config import MODES, SearchConfig
from harness.store.store import Store, build_store


@pytest.fixture
def store(tiny_corpus: CorpusFixture, tiny: Contract, store_dir: Path) -> Store:
    return build_store(store_dir, tiny_corpus, tiny.namespace, SearchConfig().lexical)[0]


def _freeze(corpus: CorpusFixture, store: Store, contract: Contract, output: Path, *, modes: tuple[str, ...] = MODES,
            config: SearchConfig | None = None, replace: bool = False) -> dict[str, Any]:
    record = current_record(fixture=corpus, store=store, config=config or SearchConfig(), contract=contract,
                            modes=modes, argv=["test"], allow_dirty=True)
    write_freeze(output, record, replace=replace)
    return record


def _heldout(corpus: CorpusFixture, store: Store, contract: Contract, output: Path, **kwargs: Any) -> list[Any]:
    return evaluate(Evaluation(corpus=corpus.path, store_dir=store.directory, output_dir=output, split="heldout",
                               **kwargs), contract)


def test_heldout_without_a_freeze_is_refused(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                             tmp_path: Path) -> None:
    with pytest.raises(FreezeError, match="no freeze record"):
        _heldout(tiny_corpus, store, tiny, tmp_path)
    assert not list(tmp_path.glob("*.jsonl"))


def test_heldout_runs_against_the_freeze_and_records_it(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                        tmp_path: Path) -> None:
    record = _freeze(tiny_corpus, store, tiny, tmp_path)
    runs = _heldout(tiny_corpus, store, tiny, tmp_path)
    assert [run.mode for run in runs] == list(MODES)
    for run in runs:
        assert run.aggregate["receipt"]["freeze"] == {"path": str(tmp_path / FREEZE_NAME),
                                                      "sha256": record["freeze_sha256"]}


def test_a_changed_configuration_is_refused_by_field(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                     tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path)
    with pytest.raises(FreezeError, match=r"search_config\.rrf_k \(frozen 60, now 30\)"):
        _heldout(tiny_corpus, store, tiny, tmp_path, config=SearchConfig(rrf_k=30))


def test_another_store_is_refused(tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    _freeze(tiny_corpus, store, tiny, tmp_path / "out")
    other, _ = build_store(tmp_path / "other", tiny_corpus, tiny.namespace, SearchConfig().lexical,
                           insertion_order=list(reversed(range(len(tiny_corpus.data["documents"])))))
    with pytest.raises(FreezeError, match=r"store\.directory"):
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
    _freeze(tiny_corpus, store, tiny, tmp_path, replace=True)  # allowed: no held-out receipt yet
    assert len(list((tmp_path / "superseded").rglob(FREEZE_NAME))) == 1
    _heldout(tiny_corpus, store, tiny, tmp_path, modes=("fts_only",))
    before = (tmp_path / FREEZE_NAME).read_bytes()
    with pytest.raises(FreezeError, match="cannot be rewritten after held-out evaluation"):
        _freeze(tiny_corpus, store, tiny, tmp_path, replace=True)
    assert (tmp_path / FREEZE_NAME).read_bytes() == before


def test_a_dirty_tree_is_refused_unless_allowed_and_then_recorded(
    tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dirty = {"available": True, "commit": "0" * 40, "dirty": True, "diff_sha256": "sha256:" + "1" * 64,
             "status_sha256": "sha256:" + "2" * 64, "changed_paths": ["x.py"]}
    monkeypatch.setattr(provenance, "git_state", lambda root=None: dirty)
    strict = current_record(fixture=tiny_corpus, store=store, config=SearchConfig(), contract=tiny, modes=MODES,
                            argv=[], allow_dirty=False)
    with pytest.raises(FreezeError, match="uncommitted changes"):
        write_freeze(tmp_path, strict, replace=False)
    allowed = current_record(fixture=tiny_corpus, store=store, config=SearchConfig(), contract=tiny, modes=MODES,
                             argv=[], allow_dirty=True)
    write_freeze(tmp_path, allowed, replace=False)
    saved = json.loads((tmp_path / FREEZE_NAME).read_text())
    assert saved["source"]["git"]["dirty"] is True
    assert "not eligible" in saved["source"]["dirty_state_policy"]

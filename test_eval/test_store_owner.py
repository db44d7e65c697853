"""A store directory belongs to the system first built in it: another system's build or open there is refused
before anything is written, naming both systems; the same system builds and opens it again as before."""

from pathlib import Path

import pytest

from harness.corpus.contract import Contract
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import make_builder
from harness.systems.registry.store_owner import OWNER_NAME, StoreOwnerError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DENSE = "numpy_dense:SYSTEM"


def _build(spec: str, tiny: Contract, corpus: CorpusFixture, store: Path) -> None:
    builder = make_builder(tiny.namespace, SearchConfig(), spec, directory=EXAMPLES)
    try:
        builder.build(corpus, store)
    finally:
        builder.close()


def test_another_systems_store_is_refused_naming_both(tiny_corpus: CorpusFixture, tiny: Contract,
                                                      tmp_path: Path) -> None:
    store = tmp_path / "store"
    _build("builtin", tiny, tiny_corpus, store)
    before = sorted(p.name for p in store.iterdir())
    for attempt in ("build", "open"):
        builder = make_builder(tiny.namespace, SearchConfig(), DENSE, directory=EXAMPLES, option="--scifact-system")
        try:
            with pytest.raises(StoreOwnerError) as refused:
                getattr(builder, attempt)(tiny_corpus, store)
        finally:
            builder.close()
        message = str(refused.value)
        assert f"{store} was built for the system 'builtin' (--scifact-system builtin), not for '{DENSE}'" in message
        assert "a store directory of its own" in message
    assert sorted(p.name for p in store.iterdir()) == before, "the refused system wrote into the store"
    _build("builtin", tiny, tiny_corpus, store)  # its own system reuses it


def test_an_unreadable_owner_record_is_named(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / OWNER_NAME).write_text("{not json", encoding="utf-8")
    with pytest.raises(StoreOwnerError, match=f"{OWNER_NAME} is not the record of the system"):
        _build(DENSE, tiny, tiny_corpus, store)

"""The persisted store: layout, idempotence, refusal, resume, integrity, insertion order, locking, ledger.

Every test works on real files in a temporary directory: a real SQLite database, the real bm25s index,
real flock locks and, for the concurrency tests, real child processes.
"""

import dataclasses
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.archives import tiny_archive
from fixtures.systems import TextSearcher as Searcher
from harness.corpus.contract import Contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.embedding.profiles import text_profile
from harness.errors import HarnessError
from harness.evaluation.history import ledger
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.locks import STORE_LOCK as LOCK
from harness.locks import store_lock
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import LexicalConfig, SearchConfig
from harness.systems.builtin.store import facts_db
from harness.systems.builtin.store import store as store_module
from harness.systems.builtin.store.store import (
    DATABASE,
    DENSE,
    LEXICAL,
    MANIFEST,
    MAPPING,
    MAPPING_SCHEMA,
    Store,
    StoreIntegrityError,
    StoreMismatchError,
    binding,
    build_store,
    open_store,
    part_digests,
    store_digest,
)

pytestmark = pytest.mark.real_model

ROOT = Path(__file__).resolve().parent.parent
LEXICAL_CONFIG = LexicalConfig()
SOURCE = "sha256:" + "5" * 64  # the source state a run-started event binds
WAIT = 0.4  # seconds a blocked reader is given to (wrongly) return before the lock is released
PERMUTATION = [3, 9, 0, 6, 1, 8, 2, 7, 5, 4]

Snapshot = dict[str, tuple[str, int]]
Rankings = dict[tuple[str, str], list[tuple[str, float]]]


# ---------------------------------------------------------------- helpers


def snapshot(directory: Path) -> Snapshot:
    """sha256 and mtime (ns) of every file under `directory`, by relative path."""
    return {p.relative_to(directory).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(directory.rglob("*")) if p.is_file()}


def without_lock(files: Snapshot) -> Snapshot:
    return {path: seen for path, seen in files.items() if path != LOCK}


def manifest_parts(directory: Path) -> dict[str, str]:
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    return {name: str(part["sha256"]) for name, part in manifest["parts"].items()}


def digests_by_hand(directory: Path) -> tuple[dict[str, str], str]:
    """The part digests and the store digest by the manifest's definition, without harness.hashing or
    the store module: sha256 of each file; the lexical directory as canonical JSON of {relative path: sha256};
    the store as canonical JSON of the four part digests."""
    def of_bytes(data: bytes) -> str:
        return "sha256:" + hashlib.sha256(data).hexdigest()

    def of_json(value: Any) -> str:
        return of_bytes(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))

    lexical = directory / LEXICAL
    parts = {"database": of_bytes((directory / DATABASE).read_bytes()),
             "mapping": of_bytes((directory / MAPPING).read_bytes()),
             "lexical": of_json({p.relative_to(lexical).as_posix(): of_bytes(p.read_bytes())
                                 for p in lexical.rglob("*") if p.is_file()}),
             "dense": of_bytes((directory / DENSE).read_bytes())}
    return parts, of_json(parts)


def doc_ids(fixture: CorpusFixture) -> list[str]:
    return [str(document["doc_id"]) for document in fixture.data["documents"]]


def read_mapping(directory: Path) -> dict[str, Any]:
    """mapping.json, refusing a document id that appears twice (json.loads would keep the last silently)."""
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        assert len(keys) == len(set(keys)), f"duplicate keys in {directory / MAPPING}: {keys}"
        return dict(pairs)

    mapping: dict[str, Any] = json.loads((directory / MAPPING).read_text(encoding="utf-8"),
                                         object_pairs_hook=no_duplicates)
    return mapping


def doc_to_fact(directory: Path) -> dict[str, int]:
    return {doc: int(fact) for doc, fact in read_mapping(directory)["doc_to_fact"].items()}


def database_rows(path: Path) -> list[tuple[int, int]]:
    """(fact_id, ordinal) of every fact, in fact-id order, read through a read-only connection."""
    with closing(facts_db.connect(path, read_only=True)) as connection:
        return [(int(f), int(o)) for f, o in connection.execute("SELECT fact_id, ordinal FROM facts ORDER BY fact_id")]


def text_values(path: Path) -> list[tuple[str, str, str]]:
    """(table, column, value) for every TEXT value in every column of every table of the database."""
    found: list[tuple[str, str, str]] = []
    with closing(facts_db.connect(path, read_only=True)) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]
            for column in columns:
                rows = connection.execute(f'SELECT "{column}" FROM "{table}" WHERE typeof("{column}") = \'text\'')
                found.extend((table, column, str(value)) for (value,) in rows)
    return found


def beir_ids_in_database(path: Path, ids: list[str]) -> list[tuple[str, str, str, str]]:
    """(id, table, column, value) wherever a BEIR id is a whole text value or a whole word inside one."""
    words = {identifier: re.compile(rf"(?<![\w-]){re.escape(identifier)}(?![\w-])") for identifier in ids}
    return [(identifier, table, column, value) for table, column, value in text_values(path)
            for identifier in ids if value == identifier or words[identifier].search(value)]


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def seed_interrupted(directory: Path, fixture: CorpusFixture, namespace: str, ordinals: list[int]) -> None:
    """What an interrupted build leaves: the database with the binding meta `_ingest` writes and some facts."""
    directory.mkdir(parents=True, exist_ok=True)
    documents = fixture.data["documents"]
    wanted = binding(fixture, namespace, LEXICAL_CONFIG)
    with closing(facts_db.connect(directory / DATABASE)) as connection:
        facts_db.create(connection, {"binding": json.dumps(wanted, sort_keys=True)})
        facts_db.insert_facts(connection, namespace, (
            (i, documents[i]["title"], documents[i]["text"], fixture.document_vectors[i]) for i in ordinals))


def rankings(store: Store, fixture: CorpusFixture) -> Rankings:
    """(doc_id, score) of every hit, for every tiny query in every mode."""
    searcher = Searcher(store, fixture, SearchConfig())
    result: Rankings = {}
    for query in fixture.data["queries"]:
        for mode in MODES:
            outcome = searcher.search(mode, query["text"])
            for hit in outcome.hits:  # every hit carries the fact id this store gave its document
                assert store.fact_ids[store.doc_ids.index(hit.doc_id)] == hit.fact_id
            result[(mode, query["query_id"])] = [(hit.doc_id, hit.score) for hit in outcome.hits]
    return result


def assert_same_rankings(left: Rankings, right: Rankings) -> None:
    assert left.keys() == right.keys()
    for key in left:
        assert [doc for doc, _ in left[key]] == [doc for doc, _ in right[key]], key
        # Scores agree to float32 rounding only: see test_identical_vectors_tie_by_doc_id_in_any_storage_order.
        assert [score for _, score in left[key]] == pytest.approx([score for _, score in right[key]], abs=1e-6), key
    assert any(left.values()), "no query found anything: the comparison would be vacuous"




class Background:
    """open_store in a thread, so the test can watch whether it has returned."""

    def __init__(self, directory: Path, fixture: CorpusFixture, namespace: str) -> None:
        self.result: Store | None = None
        self.error: BaseException | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(directory, fixture, namespace), daemon=True)
        self._thread.start()
        assert self._started.wait(timeout=30), "the reader thread never started"

    def _run(self, directory: Path, fixture: CorpusFixture, namespace: str) -> None:
        self._started.set()
        try:
            self.result = open_store(directory, fixture, namespace, LEXICAL_CONFIG)
        except BaseException as exc:  # handed to the test thread
            self.error = exc

    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self) -> Store:
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "open_store still blocked after the lock was released"
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def parity_corpus(tmp_path_factory: pytest.TempPathFactory, local_embedder: LocalEmbedder,
                  tiny: Contract) -> CorpusFixture:
    """The same tiny corpus under the mteb-parity profile: another fixture with the same shape."""
    root = tmp_path_factory.mktemp("tiny-parity")
    report = build_fixture(tiny, out=root / "parity.json", work_dir=root / "work", embedder=local_embedder,
                           archive=tiny_archive(root / "tiny.zip"), progress=False,
                           profile=text_profile("mteb-parity", tiny))
    return load_fixture(report.fixture)


@pytest.fixture
def built(store_dir: Path, tiny_corpus: CorpusFixture, tiny: Contract) -> Path:
    """A complete store of the tiny corpus, built in fixture order."""
    build_store(store_dir, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    return store_dir


# ---------------------------------------------------------------- 1. a fresh build


@pytest.mark.parametrize("order", [None, PERMUTATION], ids=["fixture-order", "permuted"])
def test_fresh_build_lays_out_every_part(store_dir: Path, tiny_corpus: CorpusFixture, tiny: Contract,
                                         order: list[int] | None) -> None:
    store, changed = build_store(store_dir, tiny_corpus, tiny.namespace, LEXICAL_CONFIG, insertion_order=order)
    assert changed is True
    for name in (MANIFEST, MAPPING, DATABASE, DENSE):
        assert (store_dir / name).is_file(), name
    assert (store_dir / LEXICAL).is_dir() and (store_dir / LEXICAL / "tokenizer.json").is_file()
    ids = doc_ids(tiny_corpus)
    n = len(ids)

    wal = store_dir / f"{DATABASE}-wal"
    assert not wal.exists() or wal.stat().st_size == 0, "the WAL was not checkpointed into the database"
    header = (store_dir / DATABASE).read_bytes()[:20]
    assert header[:16] == b"SQLite format 3\x00" and header[18:20] == b"\x02\x02", "not a WAL-mode database"

    mapping = read_mapping(store_dir)
    assert mapping["schema"] == MAPPING_SCHEMA and mapping["namespace"] == tiny.namespace
    assert mapping["fixture_sha256"] == tiny_corpus.sha256 and mapping["documents"] == n
    facts = doc_to_fact(store_dir)
    assert sorted(facts) == sorted(ids)
    assert sorted(facts.values()) == list(range(1, n + 1))
    expected_order = order if order is not None else list(range(n))
    assert facts == {ids[ordinal]: position for position, ordinal in enumerate(expected_order, start=1)}

    # The database's own fact ids and ordinals agree with the mapping, and it holds no BEIR id anywhere.
    rows = database_rows(store_dir / DATABASE)
    assert rows == [(position, ordinal) for position, ordinal in enumerate(expected_order, start=1)]
    assert beir_ids_in_database(store_dir / DATABASE, ids + [q["query_id"] for q in tiny_corpus.data["queries"]]) == []

    # dense.f32 is the fixture's document matrix with rows in fact-id order.
    dims = tiny_corpus.data["vectors"]["dimensions"]
    dense = np.fromfile(store_dir / DENSE, dtype="<f4").reshape(-1, dims)
    by_fact = sorted(facts.items(), key=lambda item: item[1])
    assert np.array_equal(dense, tiny_corpus.document_vectors[[ids.index(doc) for doc, _ in by_fact]])
    assert np.array_equal(store.dense.matrix, dense)

    # The returned store and the manifest describe the same files.
    assert store.doc_ids == [doc for doc, _ in by_fact] and store.fact_ids.tolist() == list(range(1, n + 1))
    manifest = json.loads((store_dir / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["binding"] == binding(tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    parts, whole = digests_by_hand(store_dir)
    assert {name: part["sha256"] for name, part in manifest["parts"].items()} == parts == part_digests(store_dir)
    assert manifest["store_sha256"] == whole == store_digest(store_dir) == store.sha256
    assert store.lexical.document_count == n and store.dense.document_count == n


def test_database_scan_finds_a_planted_beir_id(built: Path, tmp_path: Path, tiny_corpus: CorpusFixture) -> None:
    """The scan above can fail: a BEIR id written into a copy of the database is found, as a value and as a word."""
    copy = tmp_path / "copy.sqlite3"
    shutil.copyfile(built / DATABASE, copy)
    with closing(sqlite3.connect(copy)) as connection, connection:
        connection.execute("UPDATE facts SET title = 'see d03, the statin study' WHERE fact_id = 1")
        connection.execute("INSERT INTO meta (key, value) VALUES ('source', 'd07')")
    found = {(identifier, column) for identifier, _, column, _ in beir_ids_in_database(copy, doc_ids(tiny_corpus))}
    assert found == {("d03", "title"), ("d07", "value")}


# ---------------------------------------------------------------- 2. idempotence


def test_second_build_reuses_the_store_without_writing(built: Path, tiny_corpus: CorpusFixture,
                                                       tiny: Contract) -> None:
    before, digests = snapshot(built), part_digests(built)
    time.sleep(0.05)  # a rewrite, even of the same bytes, would move an mtime
    store, changed = build_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert changed is False
    assert part_digests(built) == digests
    assert snapshot(built) == before
    assert store.sha256 == store_digest(built)
    again = open_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert again.sha256 == store.sha256 and snapshot(built) == before


# ---------------------------------------------------------------- 3. refusal on mismatch


@pytest.mark.parametrize("complete", [True, False], ids=["complete", "interrupted"])
@pytest.mark.parametrize("differs", ["fixture_sha256", "namespace", "lexical"])
def test_store_bound_to_other_inputs_is_refused(store_dir: Path, tiny_corpus: CorpusFixture,
                                                parity_corpus: CorpusFixture, tiny: Contract,
                                                differs: str, complete: bool) -> None:
    if complete:
        build_store(store_dir, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    else:
        seed_interrupted(store_dir, tiny_corpus, tiny.namespace, [0, 1, 2])
    fixture, namespace, lexical = tiny_corpus, tiny.namespace, LEXICAL_CONFIG
    if differs == "fixture_sha256":
        fixture = parity_corpus
        assert parity_corpus.sha256 != tiny_corpus.sha256
        assert len(parity_corpus.data["documents"]) == len(tiny_corpus.data["documents"])
    elif differs == "namespace":
        namespace = "another-namespace"
    else:
        lexical = LexicalConfig(k1=1.2)
    before = without_lock(snapshot(store_dir))

    calls: list[Callable[[], object]] = [lambda: build_store(store_dir, fixture, namespace, lexical)]
    if complete:
        calls.append(lambda: open_store(store_dir, fixture, namespace, lexical))
    for call in calls:
        with pytest.raises(StoreMismatchError) as refused:
            call()
        message = str(refused.value)
        # of the lexical parameters, only the one that differs is named, with the configuration that sets it
        named = "lexical.k1: store has 1.5, requested 1.2" if differs == "lexical" else f"{differs}: store has "
        assert named in message and "fresh --store-dir" in message, message
        assert ("pass the --config" in message) is (differs == "lexical"), message
        assert "lexical.b" not in message
        for other in {"fixture_sha256", "namespace", "lexical"} - {differs}:
            assert f"{other}: store has" not in message and f"{other}.k1" not in message
    assert without_lock(snapshot(store_dir)) == before
    assert not complete or manifest_parts(store_dir) == part_digests(store_dir)


# ---------------------------------------------------------------- 4. resume


def test_resume_keeps_facts_inserted_before_the_interruption(tmp_path: Path, tiny_corpus: CorpusFixture,
                                                             tiny: Contract) -> None:
    interrupted, straight = tmp_path / "interrupted", tmp_path / "straight"
    seed_interrupted(interrupted, tiny_corpus, tiny.namespace, [7, 2, 5])
    with pytest.raises(HarnessError, match="holds no complete store"):
        open_store(interrupted, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)

    store, changed = build_store(interrupted, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert changed is True
    ids = doc_ids(tiny_corpus)
    resumed_order = [7, 2, 5] + [i for i in range(len(ids)) if i not in (7, 2, 5)]
    assert database_rows(interrupted / DATABASE) == list(enumerate(resumed_order, start=1))
    assert doc_to_fact(interrupted) == {ids[o]: f for f, o in enumerate(resumed_order, start=1)}
    assert store_digest(interrupted) == store.sha256

    reference, _ = build_store(straight, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert doc_to_fact(straight) != doc_to_fact(interrupted)
    assert_same_rankings(rankings(store, tiny_corpus), rankings(reference, tiny_corpus))


def test_build_interrupted_after_ingest_resumes(store_dir: Path, tiny_corpus: CorpusFixture, tiny: Contract,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: object) -> None:
        raise RuntimeError("killed while writing the derived parts")

    with monkeypatch.context() as patch:
        patch.setattr(store_module, "_write_derived", crash)
        with pytest.raises(RuntimeError, match="killed"):
            build_store(store_dir, tiny_corpus, tiny.namespace, LEXICAL_CONFIG, insertion_order=PERMUTATION)
    assert not (store_dir / MANIFEST).exists()
    inserted = database_rows(store_dir / DATABASE)
    assert inserted == list(enumerate(PERMUTATION, start=1))

    store, changed = build_store(store_dir, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)  # fixture order now
    assert changed is True
    assert database_rows(store_dir / DATABASE) == inserted, "the resumed build inserted or renumbered facts"
    ids = doc_ids(tiny_corpus)
    assert doc_to_fact(store_dir) == {ids[o]: f for f, o in inserted}
    assert store.sha256 == store_digest(store_dir)


def test_build_interrupted_between_batches_resumes(tmp_path: Path, tiny_corpus: CorpusFixture, tiny: Contract,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash during insertion keeps every committed batch; the resumed build inserts only the rest."""
    directory, reference_dir = tmp_path / "store", tmp_path / "reference"
    order = list(reversed(range(len(tiny_corpus.data["documents"]))))
    real_commit = facts_db._commit
    commits: list[int] = []

    def commit_once(connection: sqlite3.Connection, batch: list[tuple[str, int, str, str, int, bytes]]) -> None:
        if commits:
            raise RuntimeError("killed before the second batch was committed")
        commits.append(len(batch))
        real_commit(connection, batch)

    with monkeypatch.context() as patch:
        patch.setattr(facts_db, "BATCH", 4)
        patch.setattr(facts_db, "_commit", commit_once)
        with pytest.raises(RuntimeError, match="second batch"):
            build_store(directory, tiny_corpus, tiny.namespace, LEXICAL_CONFIG, insertion_order=order)
    assert commits == [4]
    assert database_rows(directory / DATABASE) == list(enumerate(order[:4], start=1))

    store, changed = build_store(directory, tiny_corpus, tiny.namespace, LEXICAL_CONFIG, insertion_order=order)
    assert changed is True
    assert database_rows(directory / DATABASE) == list(enumerate(order, start=1))
    reference, _ = build_store(reference_dir, tiny_corpus, tiny.namespace, LEXICAL_CONFIG, insertion_order=order)
    assert part_digests(directory)["mapping"] == part_digests(reference_dir)["mapping"]
    assert part_digests(directory)["dense"] == part_digests(reference_dir)["dense"]
    assert_same_rankings(rankings(store, tiny_corpus), rankings(reference, tiny_corpus))


# ---------------------------------------------------------------- 5. integrity


@pytest.mark.parametrize(("part", "relative"), [
    ("dense", DENSE),
    ("mapping", MAPPING),
    ("lexical", f"{LEXICAL}/vocab.index.json"),
    ("lexical", f"{LEXICAL}/tokenizer.json"),
    ("database", DATABASE),
])
def test_changed_part_is_reported_by_name(built: Path, tiny_corpus: CorpusFixture, tiny: Contract,
                                          part: str, relative: str) -> None:
    flip_byte(built / relative)
    before = snapshot(built)
    with pytest.raises(StoreIntegrityError, match=rf"store part {part} \(") as opened:
        open_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert str(built / relative.split("/")[0]) in str(opened.value)
    with pytest.raises(StoreIntegrityError, match=rf"store part {part} \("):
        build_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert snapshot(built) == before, "a damaged store was rewritten in place"


def test_extra_file_in_the_lexical_index_is_reported(built: Path, tiny_corpus: CorpusFixture, tiny: Contract) -> None:
    (built / LEXICAL / "stray.json").write_text("{}", encoding="utf-8")
    with pytest.raises(StoreIntegrityError, match=r"store part lexical \("):
        open_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)


@pytest.mark.parametrize("relative", [DENSE, MAPPING, DATABASE])
def test_missing_part_is_reported_by_name(built: Path, tiny_corpus: CorpusFixture, tiny: Contract,
                                          relative: str) -> None:
    (built / relative).unlink()
    with pytest.raises(StoreIntegrityError, match="store part"):
        open_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)


def test_manifest_store_digest_is_verified(built: Path, tiny_corpus: CorpusFixture, tiny: Contract) -> None:
    manifest = json.loads((built / MANIFEST).read_text(encoding="utf-8"))
    manifest["store_sha256"] = "sha256:" + "0" * 64
    (built / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    with pytest.raises(StoreIntegrityError):
        open_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)


# ---------------------------------------------------------------- 6. insertion order


def test_insertion_order_changes_fact_ids_but_not_rankings(tmp_path: Path, tiny_corpus: CorpusFixture,
                                                           tiny: Contract) -> None:
    n = len(tiny_corpus.data["documents"])
    forward, _ = build_store(tmp_path / "forward", tiny_corpus, tiny.namespace, LEXICAL_CONFIG,
                             insertion_order=list(range(n)))
    backward, _ = build_store(tmp_path / "backward", tiny_corpus, tiny.namespace, LEXICAL_CONFIG,
                              insertion_order=list(reversed(range(n))))
    forward_facts, backward_facts = doc_to_fact(tmp_path / "forward"), doc_to_fact(tmp_path / "backward")
    assert forward_facts.keys() == backward_facts.keys()
    assert all(forward_facts[doc] != backward_facts[doc] for doc in forward_facts)
    assert forward.sha256 != backward.sha256
    assert_same_rankings(rankings(forward, tiny_corpus), rankings(backward, tiny_corpus))


def with_twin_vector(fixture: CorpusFixture, source: int, target: int) -> CorpusFixture:
    """The fixture with document `target` given exactly the vector of document `source` (a duplicate abstract)."""
    vectors = fixture.document_vectors.copy()
    vectors[target] = vectors[source]
    digest = hashlib.sha256(fixture.sha256.encode("utf-8") + vectors.tobytes()).hexdigest()
    return dataclasses.replace(fixture, sha256=f"sha256:{digest}", document_vectors=vectors)


def test_identical_vectors_tie_by_doc_id_in_any_storage_order(tmp_path: Path, tiny_corpus: CorpusFixture,
                                                              tiny: Contract) -> None:
    ids = doc_ids(tiny_corpus)
    twin = with_twin_vector(tiny_corpus, ids.index("d04"), ids.index("d10"))
    n = len(ids)
    broken: list[str] = []
    for name, order in (("forward", list(range(n))), ("backward", list(reversed(range(n))))):
        store, _ = build_store(tmp_path / name, twin, tiny.namespace, LEXICAL_CONFIG, insertion_order=order)
        searcher = Searcher(store, twin, SearchConfig())
        for query in twin.data["queries"]:
            hits = searcher.search("vector_only", query["text"]).hits
            ranked, scores = [hit.doc_id for hit in hits], {hit.doc_id: hit.score for hit in hits}
            if scores["d04"] != scores["d10"] or ranked.index("d04") > ranked.index("d10"):
                broken.append(f"{name} {query['query_id']}: d04 {scores['d04']!r} at {ranked.index('d04') + 1}, "
                              f"d10 {scores['d10']!r} at {ranked.index('d10') + 1}")
    assert broken == [], "identical vectors did not tie by doc_id:\n" + "\n".join(broken)


# ---------------------------------------------------------------- 7. concurrency

CHILD = """
import json
import multiprocessing
import sys
import time
from pathlib import Path

from harness.fixture.corpus_fixture import load_fixture
from harness.systems.builtin.config.search_config import LexicalConfig
from harness.systems.builtin.store.store import build_store

fixture_path, store_dir, namespace, ready, go = sys.argv[1:]
fixture = load_fixture(Path(fixture_path))
Path(ready).touch()
deadline = time.monotonic() + 60
while not Path(go).exists():
    if time.monotonic() > deadline:
        sys.exit("never told to go")
    time.sleep(0.001)
store, changed = build_store(Path(store_dir), fixture, namespace, LexicalConfig())
print(json.dumps({"changed": changed, "store_sha256": store.sha256}))
"""


def test_concurrent_builds_build_once(tmp_path: Path, store_dir: Path, tiny_corpus: CorpusFixture,
                                      tiny: Contract) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{i}" for i in range(2)]
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(tiny_corpus.path), str(store_dir), tiny.namespace,
                                  str(flag), str(go)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for flag in ready]
    try:
        deadline = time.monotonic() + 60
        while not all(flag.exists() for flag in ready):
            assert all(child.poll() is None for child in children), "a child died before the start signal"
            assert time.monotonic() < deadline, "children never became ready"
            time.sleep(0.005)
        go.touch()  # both children are past their imports: release them together
        outputs = [child.communicate(timeout=60) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    for child, (_, stderr) in zip(children, outputs, strict=True):
        assert child.returncode == 0, stderr
    reports = [json.loads(stdout) for stdout, _ in outputs]
    assert sorted(report["changed"] for report in reports) == [False, True]
    manifest = json.loads((store_dir / MANIFEST).read_text(encoding="utf-8"))
    assert manifest_parts(store_dir) == part_digests(store_dir)
    assert {report["store_sha256"] for report in reports} == {manifest["store_sha256"]} == {store_digest(store_dir)}
    assert database_rows(store_dir / DATABASE) == list(enumerate(range(len(tiny_corpus.data["documents"])), 1))
    store = open_store(store_dir, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert store.sha256 == manifest["store_sha256"]


def test_reader_waits_for_the_exclusive_lock(built: Path, tiny_corpus: CorpusFixture, tiny: Contract) -> None:
    """While a writer holds the lock a part is half rewritten; open_store must wait, then see the whole part."""
    dense = (built / DENSE).read_bytes()
    with store_lock(built, exclusive=True):
        (built / DENSE).write_bytes(dense[: len(dense) // 2])  # mid-write, as a reader must never see it
        reader = Background(built, tiny_corpus, tiny.namespace)
        time.sleep(WAIT)
        waited = reader.running()
        (built / DENSE).write_bytes(dense)
    store = reader.join()
    assert waited, "open_store returned while another process held the exclusive lock"
    assert store.sha256 == store_digest(built)


def test_reader_waits_for_a_build_in_progress(tmp_path: Path, store_dir: Path, tiny_corpus: CorpusFixture,
                                              tiny: Contract) -> None:
    finished = tmp_path / "finished"
    build_store(finished, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    with store_lock(store_dir, exclusive=True):  # a build has begun: the directory holds no manifest yet
        reader = Background(store_dir, tiny_corpus, tiny.namespace)
        time.sleep(WAIT)
        waited = reader.running()
        shutil.copytree(finished, store_dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns(LOCK))
    assert waited, "open_store did not wait for the build that held the exclusive lock"
    assert reader.join().sha256 == store_digest(store_dir)


# ---------------------------------------------------------------- 8. ledger


def test_ledger_numbers_runs_and_never_touches_the_store(built: Path, tiny_corpus: CorpusFixture,
                                                        tiny: Contract) -> None:
    digest, files = store_digest(built), snapshot(built)
    query_ids = [str(q["query_id"]) for q in tiny_corpus.data["queries"]]
    first = ledger.begin_run(built, tiny.namespace, "hybrid", "test", query_ids, "2020-01-01T00:00:00Z",
                             source_sha256=SOURCE)
    second = ledger.begin_run(built, tiny.namespace, "hybrid", "test", query_ids, "2020-01-01T00:01:00Z",
                              source_sha256=SOURCE)
    assert (first.sequence, second.sequence) == (1, 2)
    assert first.run_id == f"{tiny.namespace}/hybrid/test/run-1"
    assert first.request_ids == {q: f"{tiny.namespace}/hybrid/test/run-1/{q}" for q in query_ids}
    assert second.request_ids.keys() == set(query_ids)
    assert not set(first.request_ids.values()) & set(second.request_ids.values())
    assert ledger.begin_run(built, tiny.namespace, "fts_only", "test", query_ids, "t",
                            source_sha256=SOURCE).sequence == 1
    assert ledger.begin_run(built, tiny.namespace, "hybrid", "dev", query_ids, "t",
                            source_sha256=SOURCE).sequence == 1
    assert ledger.begin_run(built, tiny.namespace, "hybrid", "test", query_ids, "t",
                            source_sha256=SOURCE).sequence == 3
    ledger.finish_run(built, first.run_id, "complete", "2020-01-01T00:02:00Z")

    with closing(sqlite3.connect(built / ledger.LEDGER, isolation_level=None)) as connection:
        status = connection.execute("SELECT status, finished_at FROM runs WHERE run_id = ?", (first.run_id,))
        assert status.fetchone() == ("complete", "2020-01-01T00:02:00Z")
        with pytest.raises(sqlite3.IntegrityError):
            connection.execute("INSERT INTO requests (request_id, run_id, query_id) VALUES (?, ?, ?)",
                               (first.request_ids[query_ids[0]], second.run_id, query_ids[0]))
        with pytest.raises(sqlite3.IntegrityError):
            connection.execute("INSERT INTO runs (run_id, mode, split, sequence, started_at, status) "
                               "VALUES (?, 'hybrid', 'test', 99, 't', 'running')", (first.run_id,))
        requests = connection.execute("SELECT COUNT(*), COUNT(DISTINCT request_id) FROM requests").fetchone()
        assert requests == (5 * len(query_ids), 5 * len(query_ids))
    events = assert_chain_intact(built)
    assert [e["event"] for e in events] == [*["run-started"] * 5, "run-finished"]
    assert events[0] == {"event": "run-started", "run_id": first.run_id, "mode": "hybrid", "split": "test",
                         "sequence": 1, "started_at": "2020-01-01T00:00:00Z", "source_sha256": SOURCE}
    assert events[-1] == {"event": "run-finished", "run_id": first.run_id, "status": "complete",
                          "finished_at": "2020-01-01T00:02:00Z"}
    assert (first.event.position, second.event.position) == (1, 2) and first.freeze_event is None

    assert store_digest(built) == digest
    assert {path: seen for path, seen in snapshot(built).items() if not path.startswith(ledger.LEDGER)} == files
    assert open_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG).sha256 == digest


# ---------------------------------------------------------------- 9. no manifest


def test_open_without_manifest_is_refused(tmp_path: Path, tiny_corpus: CorpusFixture, tiny: Contract) -> None:
    missing = tmp_path / "never-built"
    with pytest.raises(HarnessError, match="holds no complete store"):
        open_store(missing, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert not missing.exists(), "open_store created the directory it was asked to read"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(HarnessError, match="holds no complete store"):
        open_store(empty, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    assert not (empty / MANIFEST).exists()


def _begin_when_released(directory: str, barrier: Any, results: Any, split: str = "calibration",
                         freeze_sha256: str | None = None) -> None:
    barrier.wait(timeout=60)
    try:
        ticket = ledger.begin_run(Path(directory), "ns", "hybrid", split, ["q1", "q2"], "t", source_sha256=SOURCE,
                                  freeze_sha256=freeze_sha256)
        ledger.finish_run(Path(directory), ticket.run_id, "complete", "t2")
        results.put(("ok", ticket.sequence))
    except ledger.HistoryError as exc:
        results.put(("refused", str(exc)))
    except Exception as exc:  # reported to the parent, which fails the test with it
        results.put(("error", f"{type(exc).__name__}: {exc}"))


def _race(directory: Path, workers: int, **kwargs: Any) -> list[tuple[str, Any]]:
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(workers), context.Queue()
    processes = [context.Process(target=_begin_when_released, args=(str(directory), barrier, results), kwargs=kwargs)
                 for _ in range(workers)]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    return outcomes


def assert_chain_intact(directory: Path) -> list[dict[str, Any]]:
    """Recompute the history's hash chain by the rule the ledger states; return the events."""
    with closing(sqlite3.connect(directory / ledger.LEDGER)) as connection:
        rows = connection.execute("SELECT position, event, previous_digest, digest FROM history ORDER BY position")
        history = rows.fetchall()
    previous = "sha256:" + "0" * 64
    for position, (found, text, found_previous, digest) in enumerate(history, start=1):
        assert (found, found_previous) == (position, previous)
        assert digest == "sha256:" + hashlib.sha256(f"{previous}\n{text}".encode()).hexdigest(), position
        previous = digest
    return [json.loads(text) for _, text, _, _ in history]


def test_first_runs_racing_on_a_new_ledger_all_get_distinct_numbers(tmp_path: Path) -> None:
    """xdist workers start their first runs on a fresh store together; creating the ledger (WAL mode and
    tables) must not make any of them fail with 'database is locked', and the history stays one chain."""
    workers, rounds = 4, 15
    for round_number in range(rounds):
        directory = tmp_path / f"round-{round_number}"
        directory.mkdir()
        outcomes = _race(directory, workers)
        assert [outcome for outcome in outcomes if outcome[0] != "ok"] == [], f"round {round_number}"
        assert sorted(sequence for _, sequence in outcomes) == list(range(1, workers + 1))
        events = assert_chain_intact(directory)
        started = [e["sequence"] for e in events if e["event"] == "run-started"]
        assert sorted(started) == list(range(1, workers + 1)) and len(events) == 2 * workers


def test_heldout_runs_racing_under_one_freeze_let_exactly_one_through(tmp_path: Path) -> None:
    """The held-out gate and the run's start are one transaction: of workers racing to start the same mode's
    held-out run, one starts it and the others are refused."""
    workers, rounds, frozen = 4, 5, "sha256:" + "a" * 64
    for round_number in range(rounds):
        directory = tmp_path / f"round-{round_number}"
        directory.mkdir()
        ledger.record_freeze(directory, freeze_sha256=frozen, modes=["hybrid"], created_at="t", output_dir="out")
        outcomes = _race(directory, workers, split="heldout", freeze_sha256=frozen)
        assert sorted(kind for kind, _ in outcomes) == ["ok", *["refused"] * (workers - 1)], outcomes
        assert all("already started on this store" in detail for kind, detail in outcomes if kind == "refused")
        events = assert_chain_intact(directory)
        assert [e["event"] for e in events] == ["freeze", "run-started", "run-finished"]


@pytest.mark.parametrize(("column", "value", "named"), [
    ("title", "An edited title", "title"), ("body", "Text that is not the fixture's.", "text"),
    ("vector", bytes(4 * 384), "vector"),
])
def test_a_fact_edited_with_its_digests_resealed_is_refused_on_open_and_resume(
        built: Path, tiny_corpus: CorpusFixture, tiny: Contract, column: str, value: object, named: str) -> None:
    """Every digest in the manifest recomputed after the edit: only the comparison with the fixture can object."""
    with closing(sqlite3.connect(built / DATABASE)) as connection, connection:
        connection.execute(f"UPDATE facts SET {column} = ? WHERE ordinal = 3", (value,))
    manifest = json.loads((built / MANIFEST).read_text(encoding="utf-8"))
    parts = part_digests(built)
    for name, part in manifest["parts"].items():
        part["sha256"] = parts[name]
    manifest["store_sha256"] = store_digest(built)
    (built / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    document = tiny_corpus.data["documents"][3]["doc_id"]
    with pytest.raises(StoreIntegrityError, match=rf"document {document!r} with another {named} than the fixture"):
        open_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)
    (built / MANIFEST).unlink()
    with pytest.raises(StoreIntegrityError, match=rf"another {named}"):
        build_store(built, tiny_corpus, tiny.namespace, LEXICAL_CONFIG)

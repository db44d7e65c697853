"""Fuzz: any damage to a JSON document the harness reads (corpus fixture, store manifest, store mapping, freeze
record) or to the rows of its run ledger ends in a clear refusal (exit 2, 3 or 4, one or two lines, no traceback) or,
when the harness runs on regardless (exit 0), in artifacts the validator refuses (exit 1, NOT ELIGIBLE): damage
never comes out eligible for a claim. Nothing is left partly written. A damage that changes nothing is not drawn.

The artifacts are validated as a fresh clone would have written them (fixtures.clean_checkout), with the full
embedding check, so that only the damage can make them ineligible. A corpus fixture also states things in words
that neither the harness nor the validator can re-derive without the archive (DESCRIBED, with the reason); damage
there is not drawn.
"""

import hashlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st

from fixtures.archives import tiny_contract
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.cli import Outcome, run_tiny_cli
from fixtures.fuzz import FUZZ, JSON, LEFTOVERS, changed, encode, mutated, mutated_value
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.cli import main as validate


@dataclass(frozen=True)
class Frozen:
    """A calibrated and frozen tiny evaluation: fixture, store and output directory."""

    root: Path

    @property
    def fixture(self) -> Path:
        return self.root / "fixture" / "tiny.json"

    @property
    def store(self) -> Path:
        return self.root / "store"

    @property
    def out(self) -> Path:
        return self.root / "out"

    def run(self, split: str = "calibration", out: Path | None = None, store: Path | None = None) -> list[str]:
        return ["run", "--corpus", str(self.fixture), "--store-dir", str(store or self.store), "--output-dir",
                str(out or self.out), "--split", split, "--mode", "all", "--no-validate"]


@pytest.fixture(scope="module")
def template(tiny_corpus: CorpusFixture, tmp_path_factory: pytest.TempPathFactory) -> Frozen:
    frozen = Frozen(tmp_path_factory.mktemp("fuzz-template"))
    frozen.fixture.parent.mkdir()
    shutil.copy2(tiny_corpus.path, frozen.fixture)
    sidecar = json.loads(tiny_corpus.path.read_bytes())["vectors"]["file"]
    shutil.copy2(tiny_corpus.path.parent / sidecar, frozen.fixture.parent / sidecar)
    contract, config = tiny_contract(), SearchConfig()
    fixture = load_fixture(frozen.fixture)
    store, _ = build_store(frozen.store, fixture, contract.namespace, config.lexical)
    run_split(Evaluation(corpus=frozen.fixture, store_dir=frozen.store, output_dir=frozen.out, split="calibration"),
             contract)
    freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract, modes=MODES,
                         output_dir=frozen.out, argv=["fuzz"], allow_dirty=True, replace=False,
                         allow_failed_calibration=False)
    return frozen


Copies = Callable[[], Frozen]


@pytest.fixture
def copies(template: Frozen, tmp_path: Path) -> Copies:
    """A fresh copy of the template per example (fixtures are shared by every example of a test)."""
    def make() -> Frozen:
        copy = Frozen(Path(tempfile.mkdtemp(dir=tmp_path)))
        for name in ("fixture", "store", "out"):
            shutil.copytree(template.root / name, copy.root / name)
        return copy
    return make


def _aggregates(root: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in root.rglob("*.aggregate.json") if "superseded" not in path.parts}


def assert_refused(outcome: Outcome, root: Path, before: dict[Path, bytes], capsys: pytest.CaptureFixture[str],
                   out: Path, store: Path) -> None:
    """A clear refusal, or the aggregates the command wrote (else those in `out`) refused by the validator against
    the store the command used; and no partly written output either way. `before` holds the aggregates under `root`
    before the command."""
    event(f"exit {outcome.code}")
    assert outcome.code in (0, 2, 3, 4), outcome.err
    assert "Traceback" not in outcome.err, outcome.err
    if outcome.code:
        lines = outcome.err.strip().splitlines()
        assert 1 <= len(lines) <= 2 and lines[0].startswith("error: "), outcome.err
    for path in root.rglob("*"):
        assert not any(mark in path.name for mark in LEFTOVERS), f"left behind: {path}"
        assert not (path.name.startswith(".scifact-") and path.name.endswith(".lock")), f"left behind: {path}"
        if path.name.endswith(".jsonl") and "superseded" not in path.parts:
            assert path.with_name(path.name.removesuffix(".jsonl") + ".aggregate.json").is_file(), path
    if outcome.code == 0:
        written = [path for path, data in _aggregates(root).items() if before.get(path) != data]
        for directory in {path.parent for path in written} or {out}:
            mark_clean_checkout(directory)
        for aggregate in written or sorted(_aggregates(out)):
            capsys.readouterr()
            code = validate([str(aggregate), "--full-embedding", "--store-dir", str(store)])
            verdict = capsys.readouterr().out
            event(f"accepted, then validated: exit {code}")
            assert code == 1, f"{aggregate.name}: the damaged input came out {verdict.strip().splitlines()[-1]}"


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _canonical(value: Any) -> str:
    return _sha256(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())


IN_WORDS = "stated for the reader; what it describes is re-derived (digests re-hashed, every text re-embedded)"
DESCRIBED: dict[tuple[str, ...], str] = {
    ("builder_version",): "the harness version that built the fixture, as the fixture states it",
    ("profile", "description"): IN_WORDS,
    ("payload_hashes", "canonical_json"): IN_WORDS,
    ("payload_hashes", "definitions"): IN_WORDS,
    ("semantic_text",): "the semantic-text rules and counts; each text is re-embedded with the profile's prefixes",
    ("embedding", "normalization"): IN_WORDS,
    ("embedding", "truncation_policy"): IN_WORDS,
    ("embedding", "prompts_truncated_by_model"): IN_WORDS,
    ("embedding", "endpoint"): "the server a remote model was reached at; the packaged model has none",
    ("embedding", "computation"): "where and how the builder says it computed the vectors; the validator re-embeds "
                                  "every text on its own CPU and holds the vectors to its bound, whatever it says",
    ("vectors", "dtype"): IN_WORDS,
    ("vectors", "byte_order"): IN_WORDS,
    ("vectors", "layout"): IN_WORDS,
    **{("source", key): "the archive's own digests and sizes: re-derived only from the archive, which neither the "
                        "run nor the validator is given here"
       for key in ("kind", "url", "archive_sha256", "archive_md5", "archive_bytes", "members", "unused_members",
                   "allow_unpinned")},
}


def _not_described(path: tuple[str | int, ...]) -> bool:
    return not any(tuple(path[:len(prefix)]) == prefix for prefix in DESCRIBED)


@FUZZ
@given(data=st.data())
def test_a_damaged_fixture(copies: Copies, capsys: pytest.CaptureFixture[str], data: st.DataObject) -> None:
    frozen = copies()
    original = frozen.fixture.read_bytes()
    damaged = data.draw(mutated(json.loads(original), _not_described))
    assume(changed(original, damaged))
    frozen.fixture.write_bytes(damaged)
    before = _aggregates(frozen.root)
    argv = frozen.run(out=frozen.root / "new", store=frozen.root / "new-store")  # a new fixture needs a new store
    assert_refused(run_tiny_cli(argv, capsys), frozen.root, before, capsys, frozen.root / "new",
                   frozen.root / "new-store")


@FUZZ
@given(data=st.data())
def test_a_damaged_store_manifest(copies: Copies, capsys: pytest.CaptureFixture[str], data: st.DataObject) -> None:
    frozen = copies()
    manifest = frozen.store / "store.json"
    original = manifest.read_bytes()
    damaged = data.draw(mutated(json.loads(original)))
    assume(changed(original, damaged))
    manifest.write_bytes(damaged)
    before = _aggregates(frozen.root)
    assert_refused(run_tiny_cli(frozen.run(out=frozen.root / "new"), capsys), frozen.root, before, capsys,
                   frozen.root / "new", frozen.store)


@FUZZ
@given(data=st.data())
def test_a_damaged_mapping_with_its_digests_resealed(copies: Copies, capsys: pytest.CaptureFixture[str],
                                                     data: st.DataObject) -> None:
    """Resealed in the manifest, so the damage gets past the digest check to the parsing behind it."""
    frozen = copies()
    mapping, manifest_path = frozen.store / "mapping.json", frozen.store / "store.json"
    original = mapping.read_bytes()
    damaged = encode(data.draw(mutated_value(json.loads(original))))
    assume(changed(original, damaged))
    mapping.write_bytes(damaged)
    manifest = json.loads(manifest_path.read_bytes())
    manifest["parts"]["mapping"]["sha256"] = _sha256(damaged)
    manifest["store_sha256"] = _canonical({name: part["sha256"] for name, part in manifest["parts"].items()})
    manifest_path.write_bytes(encode(manifest))
    before = _aggregates(frozen.root)
    assert_refused(run_tiny_cli(frozen.run(out=frozen.root / "new"), capsys), frozen.root, before, capsys,
                   frozen.root / "new", frozen.store)


@FUZZ
@given(data=st.data(), reseal=st.booleans())
def test_a_damaged_freeze_record(copies: Copies, capsys: pytest.CaptureFixture[str], data: st.DataObject,
                                 reseal: bool) -> None:
    frozen = copies()
    path = frozen.out / "freeze.json"
    original = path.read_bytes()
    record = data.draw(mutated_value(json.loads(original)))
    if reseal and isinstance(record, dict):
        record["freeze_sha256"] = _canonical({k: v for k, v in record.items() if k != "freeze_sha256"})
    assume(changed(original, encode(record)))
    path.write_bytes(encode(record))
    before = _aggregates(frozen.root)
    assert_refused(run_tiny_cli(frozen.run("heldout"), capsys), frozen.root, before, capsys, frozen.out,
                   frozen.store)


LEDGER_TEXT = st.one_of(JSON.map(lambda v: json.dumps(v)), st.text(max_size=20),
                        st.fixed_dictionaries({"event": st.sampled_from(["freeze", "run-started", "run-finished"]),
                                               "split": st.sampled_from(["heldout", "all", "calibration", 3]),
                                               "mode": st.sampled_from([*MODES, None]),
                                               "freeze_sha256": st.text(max_size=8)}).map(json.dumps))
SQL_VALUE = st.one_of(st.none(), st.integers(min_value=-(2**62), max_value=2**62), st.text(max_size=10),
                      st.floats(allow_nan=False), st.binary(max_size=8))


@FUZZ
@given(events=st.lists(LEDGER_TEXT, max_size=3),
       runs=st.lists(st.tuples(st.sampled_from(MODES), st.sampled_from(["heldout", "all", "calibration"]),
                               SQL_VALUE, SQL_VALUE, SQL_VALUE), max_size=2),
       command=st.sampled_from(["heldout", "calibration", "freeze"]))
def test_odd_rows_in_the_run_ledger(copies: Copies, capsys: pytest.CaptureFixture[str], events: list[str],
                                    runs: list[tuple[Any, ...]], command: str) -> None:
    frozen = copies()
    before = _aggregates(frozen.root)
    with closing(sqlite3.connect(frozen.store / "ledger.sqlite3", isolation_level=None)) as connection:
        (last,) = connection.execute("SELECT COALESCE(MAX(position), 0) FROM history").fetchone()
        (count,) = connection.execute("SELECT COUNT(*) FROM runs").fetchone()
        for offset, text in enumerate(events, start=1):
            connection.execute("INSERT INTO history VALUES (?, ?, ?, ?)", (last + offset, text, "x", f"d{offset}"))
        for number, (mode, split, sequence, started_at, status) in enumerate(runs):
            connection.execute("INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, NULL, ?)",
                               (f"odd-{number}", mode, split, sequence, started_at, status))
        assume(events or connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0] > count)  # a row went in
    argv = (["freeze", "--corpus", str(frozen.fixture), "--store-dir", str(frozen.store), "--output-dir",
             str(frozen.out), "--allow-dirty", "--replace"] if command == "freeze" else frozen.run(command))
    assert_refused(run_tiny_cli(argv, capsys), frozen.root, before, capsys, frozen.out, frozen.store)

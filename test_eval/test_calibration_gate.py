"""A calibration with failed queries is not frozen silently: `python -m harness freeze` names the mode, the count,
the first failed query and its error, and the fix; --allow-failed-calibration freezes anyway and the freeze record
says so. A frozen mode with no calibration receipt counts as a calibration that failed entirely."""

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from fixtures.cli import run_tiny_cli
from harness.corpus.contract import Contract
from harness.errors import SYSTEM_FAILED
from harness.evaluation.gates.calibration_gate import ALLOWED, REQUIRED, CalibrationGateError
from harness.evaluation.gates.freeze import FREEZE_NAME, freeze_configuration
from harness.evaluation.history.ledger import LEDGER
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_file
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem

REPEATING = '''
from pathlib import Path
from harness.systems.plugin import Corpus, Result


class Repeating:
    """Answers every query with its first document twice: a ranking the harness refuses, so every row fails."""

    name = "repeating"
    version = "1.0.0"
    modes = ("vector_only",)

    def configuration(self):
        return {"answer": "the first document, twice"}

    def build(self, corpus: Corpus, directory: Path) -> bool:
        self.path = directory / "ids.txt"
        changed = not self.path.exists()
        self.path.write_text("\\n".join(corpus.doc_ids), encoding="utf-8")
        self.open(corpus, directory)
        return changed

    def open(self, corpus: Corpus, directory: Path) -> None:
        self.path, self.first = directory / "ids.txt", corpus.doc_ids[0]

    def parts(self):
        return {"ids": self.path}

    def search(self, mode, text, vector, top_k):
        return [Result(self.first, 1.0), Result(self.first, 0.5)]


SYSTEM = Repeating()
'''


def _events(store: Path) -> list[str]:
    with closing(sqlite3.connect(store / LEDGER)) as connection:
        return [json.loads(text)["event"] for (text,) in connection.execute("SELECT event FROM history")]


def test_a_failed_calibration_refuses_the_freeze_until_it_is_allowed(
        tiny_corpus: CorpusFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "repeating.py").write_text(REPEATING, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    where = ["--corpus", str(tiny_corpus.path), "--store-dir", str(tmp_path / "store"), "--output-dir",
             str(tmp_path / "out"), "--system", "repeating:SYSTEM"]
    ran = run_tiny_cli(["run", *where, "--split", "calibration", "--no-validate"], capsys)
    rows = [json.loads(line) for line in (tmp_path / "out" / "tiny-test-vector_only-calibration.jsonl").read_bytes()
            .splitlines()]
    assert rows and all(row["error"] and row["failed_by"] == "system" for row in rows)
    assert ran.code == SYSTEM_FAILED and "freeze" not in ran.out, ran  # written, but no success: no next step
    assert (f"error: system 'repeating' failed {len(rows)} of {len(rows)} vector_only calibration queries") in ran.err
    refused = run_tiny_cli(["freeze", *where, "--allow-dirty"], capsys)
    assert refused.code == 3 and refused.out == "" and len(refused.err.splitlines()) == 1, refused
    assert (f"vector_only: {len(rows)} of {len(rows)} calibration queries failed; the first, query "
            f"{rows[0]['query_id']}: {rows[0]['error']}") in refused.err
    assert "pass --allow-failed-calibration" in refused.err
    assert not (tmp_path / "out" / FREEZE_NAME).exists() and "freeze" not in _events(tmp_path / "store")
    allowed = run_tiny_cli(["freeze", *where, "--allow-dirty", "--allow-failed-calibration"], capsys)
    assert allowed.code == 0, allowed
    assert (f"calibration: vector_only: {len(rows)} of {len(rows)} queries failed (frozen with "
            "--allow-failed-calibration") in allowed.out
    record = json.loads((tmp_path / "out" / FREEZE_NAME).read_bytes())
    aggregate = tmp_path / "out" / "tiny-test-vector_only-calibration.aggregate.json"
    assert record["calibration"] == {"policy": ALLOWED, "receipts": {"vector_only": {
        "aggregate": aggregate.name, "sha256": sha256_file(aggregate), "row_count": len(rows),
        "failures": len(rows)}}}


def test_a_frozen_mode_without_calibration_refuses_the_freeze(tiny_corpus: CorpusFixture, tiny: Contract,
                                                              tmp_path: Path) -> None:
    store, _ = build_store(tmp_path / "store", tiny_corpus, tiny.namespace, SearchConfig().lexical)
    out = tmp_path / "out"
    run_split(Evaluation(corpus=tiny_corpus.path, store_dir=store.directory, output_dir=out, split="calibration",
                         modes=("fts_only",)), tiny)

    def freeze(modes: tuple[str, ...], allow: bool) -> dict[str, Any]:
        return freeze_configuration(fixture=tiny_corpus, system=BuiltinSystem(store, SearchConfig()), contract=tiny,
                                    modes=modes, output_dir=out, argv=[], allow_dirty=True, replace=True,
                                    allow_failed_calibration=allow).record

    with pytest.raises(CalibrationGateError, match=r"the freeze is refused: vector_only has no calibration receipt "
                                                   r"\(tiny-test-vector_only-calibration.aggregate.json\) in "):
        freeze(("fts_only", "vector_only"), False)
    clean = freeze(("fts_only",), False)
    assert clean["calibration"]["policy"] == REQUIRED
    assert clean["calibration"]["receipts"]["fts_only"]["failures"] == 0
    allowed = freeze(("fts_only", "vector_only"), True)
    assert allowed["calibration"]["policy"] == ALLOWED and allowed["calibration"]["receipts"]["vector_only"] is None

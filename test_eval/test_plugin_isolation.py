"""A system from outside the harness answers in a worker process that never held the judgements, and everything it
ran is bound: a system that looks for the judgements in its own process finds none (the same code in the harness's
process would); a helper module edited after the freeze, or a declared variable changed, stops the held-out run
before anything is run or written; an undeclared variable never reaches the system; the libraries it imported are
recorded by version; a module first imported while searching is named as the system's mistake at calibration."""

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures import plugins
from harness.corpus.contract import Contract
from harness.evaluation.gates.freeze import FreezeError, freeze_configuration
from harness.evaluation.history import ledger
from harness.evaluation.measures.metrics import Conventions, query_metrics
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_file, sha256_text
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.plugin.adapter import corpus_of
from harness.systems.plugin.client import PluginError
from harness.systems.registry.select import make_builder
from harness.validator.pipeline import validate

ROOT = Path(__file__).resolve().parent.parent
LONE = '''"""A lone-module system whose ranking lives in a helper module beside it."""

from pathlib import Path
from typing import Any

import numpy as np

import lone_helper
from harness.systems.plugin import DENSE_EXACT, Result


class Lone:
    name, version, modes, declarations = "lone", "1.0.0", ("vector_only",), {"dense": DENSE_EXACT}

    def configuration(self) -> dict[str, Any]:
        return {"ranking": "lone_helper.order"}

    def build(self, corpus, directory: Path) -> bool:
        np.save(directory / "vectors.npy", corpus.vectors)
        self.open(corpus, directory)
        return True

    def open(self, corpus, directory: Path) -> None:
        self.path, self.doc_ids = directory / "vectors.npy", corpus.doc_ids
        self.matrix = np.load(self.path)

    def parts(self) -> dict[str, Path]:
        return {"vectors": self.path}

    def search(self, mode, text, vector, top_k):
        scores = self.matrix @ vector
        return [Result(self.doc_ids[i], float(scores[i])) for i in lone_helper.order(scores, self.doc_ids)[:top_k]]


SYSTEM = Lone()
'''
HELPER = '''def order(scores, doc_ids):
    return sorted(range(len(scores)), key=lambda i: (-scores[i], doc_ids[i]))
'''


def _run(corpus: CorpusFixture, contract: Contract, root: Path, split: str, spec: str) -> list[ModeRun]:
    return run_split(Evaluation(corpus=corpus.path, store_dir=root / "store", output_dir=root / "out", split=split,
                                system=spec), contract)


def _freeze(corpus: CorpusFixture, contract: Contract, root: Path, spec: str) -> None:
    builder = make_builder(contract.namespace, SearchConfig(), spec)
    try:
        system = builder.open(corpus, root / "store")
        freeze_configuration(fixture=corpus, system=system, contract=contract, modes=system.modes,
                             output_dir=root / "out", argv=[], allow_dirty=True, replace=False)
    finally:
        builder.close()


def _rows(run: ModeRun) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run.rows_path.read_text(encoding="utf-8").splitlines()]


def _held_out_started(store: Path) -> list[str]:
    started = [e.event["split"] for e in ledger.history(store) if e.kind == "run-started"]
    return [split for split in started if split != "calibration"]


def test_a_system_looking_for_the_judgements_finds_none_in_its_process(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                       tmp_path: Path) -> None:
    [run] = _run(tiny_corpus, tiny, tmp_path, "calibration", "fixtures.plugins:Peeking")
    assert run.aggregate["receipt"]["store"]["attested"] == {"judgements_found": 0, "answered_from_judgements": 0}
    fixed = sorted((d["doc_id"] for d in tiny_corpus.data["documents"]), reverse=True)[:10]
    rows = _rows(run)
    assert [row["ranked_doc_ids"] for row in rows] == [fixed] * len(rows)  # the honest ranking, for every query
    assert run.aggregate["metrics"]["ndcg_at_10"] < 1.0

    # The probe works: the harness's own process (here, the test's) holds the judgements, and the same system run
    # in it, as systems ran before they had a process of their own, answers from them.
    doc_ids = tuple(d["doc_id"] for d in tiny_corpus.data["documents"])
    assert plugins.judgements_in_memory(doc_ids)
    in_process = plugins.Peeking()
    (tmp_path / "in-process").mkdir()
    in_process.build(corpus_of(tiny_corpus, tiny.namespace), tmp_path / "in-process")
    conventions = Conventions.declared(tiny.measures)
    for row in rows:
        query = next(q for q in tiny_corpus.data["queries"] if q["query_id"] == row["query_id"])
        ranked = [r.doc_id for r in in_process.search("fts_only", query["text"], None, 10)]
        assert query_metrics(ranked, query["qrels"], conventions)["ndcg_at_10"] == 1.0 > row["metrics"]["ndcg_at_10"]
    assert in_process.answered_from_judgements == len(rows)


@pytest.fixture
def lone_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    source = tmp_path / "lone-source"
    source.mkdir()
    (source / "lone.py").write_text(LONE, encoding="utf-8")
    (source / "lone_helper.py").write_text(HELPER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(source))
    return source


def test_a_helper_module_edited_after_the_freeze_stops_held_out_and_fails_validation(
        lone_system: Path, tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    [run] = _run(tiny_corpus, tiny, tmp_path, "calibration", "lone:SYSTEM")
    system = run.aggregate["receipt"]["system"]
    helper = lone_system / "lone_helper.py"
    assert system["source"]["files"] == {"lone.py": sha256_file(lone_system / "lone.py")}  # the lone module alone
    # a helper beside the system's module is its own source: by its path under the source root
    assert system["modules"]["lone_helper"] == {"source_path": "lone_helper.py", "sha256": sha256_file(helper)}
    assert "system.modules" in {c.name for c in validate(run.aggregate_path).checks if c.status == "pass"}
    _freeze(tiny_corpus, tiny, tmp_path, "lone:SYSTEM")
    helper.write_text(HELPER.replace("-scores[i]", "scores[i]"), encoding="utf-8")  # worst first

    with pytest.raises(FreezeError, match=r"differs from the freeze in system\.modules\.lone_helper\.sha256 .*Next: "
                                          r"restore module lone_helper to the file frozen \(sha256:\w+: its code as "
                                          r"the freeze bound it: no git work tree holds the system's source, whose "
                                          r"files it binds by sha256\); or calibrate again and freeze in a new "
                                          r"--store-dir and --output-dir"):
        _run(tiny_corpus, tiny, tmp_path, "heldout", "lone:SYSTEM")
    assert not list((tmp_path / "out").glob("*heldout*")) and not _held_out_started(tmp_path / "store")
    failed = {c.name: c for c in validate(run.aggregate_path).failed}
    assert "system.modules" in failed and "lone_helper" in str(failed["system.modules"].found)


def test_the_environment_is_declared_bound_by_digest_and_never_written(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    value = "declared-value-7c1e9a"
    monkeypatch.setenv(plugins.DECLARED, value)
    monkeypatch.setenv(plugins.UNDECLARED, "reverse")  # would reverse the ranking, had it reached the system
    spec = "fixtures.plugins:EnvironmentReader"
    [run] = _run(tiny_corpus, tiny, tmp_path / "a", "calibration", spec)
    [honest] = _run(tiny_corpus, tiny, tmp_path / "b", "calibration", "fixtures.plugins:Dense")
    receipt = run.aggregate["receipt"]
    assert receipt["store"]["attested"] == {"declared_seen": True, "undeclared_seen": False}
    assert receipt["system"]["environment"] == {plugins.DECLARED: sha256_text(value)}
    assert [r["ranked_doc_ids"] for r in _rows(run)] == [r["ranked_doc_ids"] for r in _rows(honest)]
    _freeze(tiny_corpus, tiny, tmp_path / "a", spec)
    written = [p for p in (tmp_path / "a").rglob("*") if p.is_file() and value.encode() in p.read_bytes()]
    assert not written

    monkeypatch.setenv(plugins.DECLARED, "another value")
    with pytest.raises(FreezeError, match=rf"differs from the freeze in system\.environment\.{plugins.DECLARED} .*"
                                          rf"Next: set \${plugins.DECLARED} back to the value frozen \(the freeze "
                                          r"binds its sha256, sha256:\w+; it is another value now\); or calibrate"):
        _run(tiny_corpus, tiny, tmp_path / "a", "heldout", spec)
    assert not _held_out_started(tmp_path / "a" / "store")
    monkeypatch.delenv(plugins.DECLARED)
    with pytest.raises(FreezeError, match=rf"system\.environment\.{plugins.DECLARED} \(frozen 'sha256:\w+', now None.*"
                                          r"it is unset now\)"):
        _run(tiny_corpus, tiny, tmp_path / "a", "heldout", spec)


def test_the_libraries_a_system_imported_are_recorded_by_version(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                 tmp_path: Path) -> None:
    [run] = _run(tiny_corpus, tiny, tmp_path, "calibration", "fixtures.plugins:Dense")
    system = run.aggregate["receipt"]["system"]
    assert system["distributions"]["numpy"] == np.__version__
    assert system["modules"]["fixtures.plugins"]["sha256"] == sha256_file(ROOT / "fixtures" / "plugins.py")
    assert not [name for name in system["modules"] if name.startswith("harness")]
    assert "numpy" not in system["modules"] and "json" not in system["modules"]  # a distribution's, the stdlib's
    assert not plugins.still_present(tmp_path / "store")  # every worker of the run was reaped


def test_a_module_first_imported_while_searching_is_the_systems_error_at_calibration(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    with pytest.raises(PluginError, match=r"imported fixtures\.imported_late while searching.*import it when the "
                                          r"system's module is imported, so the receipt binds it"):
        _run(tiny_corpus, tiny, tmp_path, "calibration", "fixtures.plugins:LateImporter")
    assert not list((tmp_path / "out").glob("*.jsonl"))
    finished = [e.event["status"] for e in ledger.history(tmp_path / "store") if e.kind == "run-finished"]
    assert finished == ["failed"]

"""A system from outside the harness, end to end: the documented example plugin is evaluated, validated, frozen and
run on held-out with no change to the harness; what it cannot hide (a forged row, an edited part, a changed
configuration, an unoffered mode) is refused by name; every wrong --system ends in one line."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.corpus.contract import Contract
from harness.errors import HarnessError
from harness.evaluation.gates.freeze import FreezeError, freeze_configuration
from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.evaluation.measures.metrics import Conventions, depth_metrics, query_metrics
from harness.evaluation.receipts.artifacts import rows_bytes
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes, sha256_canonical
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import SystemSpecError, make_builder
from harness.validator.core.report import Report
from harness.validator.pipeline import validate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SPEC = "numpy_dense:SYSTEM"
GIT = {"source.git", "source.clean"}  # a work tree with changes is recorded as such, and not eligible


@pytest.fixture
def examples_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    for name in [n for n in sys.modules if n == "numpy_dense"]:
        monkeypatch.delitem(sys.modules, name)


def _run(corpus: CorpusFixture, tiny: Contract, root: Path, split: str) -> ModeRun:
    [run] = run_split(Evaluation(corpus=corpus.path, store_dir=root / "store", output_dir=root / "out", split=split,
                                 system=SPEC), tiny)
    return run


def _problems(report: Report) -> list[str]:
    return [c.line() for c in report.checks if c.status != "pass" and c.name not in GIT]


def test_the_systems_page_prints_the_example_plugin_verbatim_and_the_readme_an_excerpt() -> None:
    source = (EXAMPLES / "numpy_dense.py").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "systems.md").read_text(encoding="utf-8")
    assert re.findall(r"<!-- example-plugin -->\n```python\n(.*?)```", page, flags=re.S) == [source]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [excerpt] = re.findall(r"<!-- example-plugin: excerpt -->\n```python\n(.*?)```", readme, flags=re.S)
    assert excerpt.count("\n") >= 3 and "\n" + excerpt in source, excerpt


@pytest.mark.usefixtures("examples_on_path")
def test_the_example_plugin_is_evaluated_validated_frozen_and_held_out(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                       tmp_path: Path) -> None:
    run = _run(tiny_corpus, tiny, tmp_path, "calibration")
    receipt = run.aggregate["receipt"]
    assert (run.mode, receipt["system"]["name"], receipt["system"]["spec"]) == ("vector_only", "numpy-dense", SPEC)
    assert receipt["system"]["source"]["files"] == {
        "numpy_dense.py": sha256_bytes((EXAMPLES / "numpy_dense.py").read_bytes())}
    assert set(receipt["store"]["parts"]) == {"vectors"}
    report = validate(run.aggregate_path)
    assert not _problems(report), "\n".join(_problems(report))
    passed = {c.name for c in report.checks if c.status == "pass"}
    assert {"replay.dense", "store.parts", "store.live", "system.source", "rows.fact_ids"} <= passed
    assert "exactly" in next(c.detail for c in report.checks if c.name == "replay.dense")

    system = make_builder(tiny.namespace, SearchConfig(), SPEC).open(tiny_corpus, tmp_path / "store")
    freeze_configuration(fixture=tiny_corpus, system=system, contract=tiny, modes=system.modes,
                         output_dir=tmp_path / "out", argv=[], allow_dirty=True, replace=False,
                         allow_failed_calibration=False)
    held_out = _run(tiny_corpus, tiny, tmp_path, "heldout")
    report = validate(held_out.aggregate_path)
    assert not _problems(report), "\n".join(_problems(report))
    assert held_out.aggregate["receipt"]["system"] == run.aggregate["receipt"]["system"]
    assert receipt["system"]["distributions"]["numpy"] == np.__version__
    assert receipt["system"]["modules"]["numpy_dense"]["sha256"] == sha256_bytes(
        (EXAMPLES / "numpy_dense.py").read_bytes())


def test_a_changed_configuration_is_not_the_frozen_system(tiny_corpus: CorpusFixture, tiny: Contract,
                                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "numpy_dense.py").write_bytes((EXAMPLES / "numpy_dense.py").read_bytes())
    monkeypatch.syspath_prepend(str(source))
    _run(tiny_corpus, tiny, tmp_path, "calibration")
    builder = make_builder(tiny.namespace, SearchConfig(), SPEC)
    system = builder.open(tiny_corpus, tmp_path / "store")
    freeze_configuration(fixture=tiny_corpus, system=system, contract=tiny, modes=system.modes,
                         output_dir=tmp_path / "out", argv=[], allow_dirty=True, replace=False)
    builder.close()
    edited = (source / "numpy_dense.py").read_text(encoding="utf-8").replace('"ties": "doc_id ascending"',
                                                                            '"ties": "doc_id descending"')
    (source / "numpy_dense.py").write_text(edited, encoding="utf-8")
    with pytest.raises(FreezeError, match=r"differs from the freeze in search_config\.ties \(frozen 'doc_id "
                                          r"ascending', now 'doc_id descending'\).*Next: set ties back to 'doc_id "
                                          r"ascending'.*calibrate again and freeze in"):
        _run(tiny_corpus, tiny, tmp_path, "heldout")


def _forge_first_row(run: ModeRun) -> None:
    """Swap ranks 1 and 2 of the first row, keeping the scores in place, and re-derive every digest and metric."""
    rows = [json.loads(line) for line in run.rows_path.read_text(encoding="utf-8").splitlines()]
    results = rows[0]["results"]
    for key in ("doc_id", "fact_id"):
        results[0][key], results[1][key] = results[1][key], results[0][key]
    row = rows[0]
    row["ranked_doc_ids"] = [r["doc_id"] for r in results]
    conventions = Conventions.declared(run.aggregate["receipt"]["measures"])
    row["metrics"] = query_metrics(row["ranked_doc_ids"], row["qrels"], conventions)
    if "depth_ranking" in row:
        row["metrics"].update(depth_metrics(row["depth_ranking"]["doc_ids"], row["qrels"], conventions))
    row["search_receipt"]["results_sha256"] = sha256_canonical([[r["doc_id"], r["fact_id"], r["score"]]
                                                                for r in results])
    row["search_receipt_sha256"] = sha256_canonical(row["search_receipt"])
    data = rows_bytes(rows)
    run.rows_path.write_bytes(data)
    aggregate: dict[str, Any] = json.loads(run.aggregate_path.read_text(encoding="utf-8"))
    aggregate.update(per_query_sha256=sha256_bytes(data), metrics=aggregate_metrics(rows, 10))
    run.aggregate_path.write_text(json.dumps(aggregate), encoding="utf-8")


@pytest.mark.usefixtures("examples_on_path")
def test_a_forged_row_and_an_edited_part_are_refused(tiny_corpus: CorpusFixture, tiny: Contract,
                                                     tmp_path: Path) -> None:
    run = _run(tiny_corpus, tiny, tmp_path, "calibration")
    _forge_first_row(run)
    report = validate(run.aggregate_path)
    assert "replay.dense" in {c.name for c in report.failed}, "\n".join(c.line() for c in report.checks)
    vectors = tmp_path / "store" / "vectors.npy"
    np.save(vectors, np.load(vectors)[::-1])
    assert {"store.parts", "store.live"} <= {c.name for c in validate(run.aggregate_path).failed}


@pytest.mark.usefixtures("examples_on_path")
def test_a_mode_the_system_does_not_offer_is_refused_before_anything_is_built(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="does not offer fts_only; it offers vector_only"):
        run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out",
                             split="calibration", modes=("fts_only",), system=SPEC), tiny)
    assert not (tmp_path / "store").exists()


class Incomplete:
    name = "incomplete"
    version = "0"
    modes = ("vector_only",)

    def search(self) -> None: ...


INCOMPLETE = Incomplete()


@pytest.mark.parametrize(("spec", "message"), [
    ("no-such-system", "no such system; registered: builtin"),
    ("no_such_module:SYSTEM", "cannot import 'no_such_module'"),
    ("numpy_dense:NOPE", "has no attribute 'NOPE'"),
    ("test_eval.test_plugin_system:INCOMPLETE", "lacks configuration, build, open, parts"),
])
@pytest.mark.usefixtures("examples_on_path")
def test_a_wrong_system_is_named_with_what_is_wrong(spec: str, message: str) -> None:
    """The system is imported in its worker process, from where the harness's process would import it."""
    with pytest.raises(SystemSpecError, match=re.escape(message)):
        make_builder("tiny-test", SearchConfig(), spec)


def test_a_system_registered_as_an_entry_point_is_found_by_name(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A real installed distribution's metadata (a .dist-info on sys.path) registers the example by name."""
    info = tmp_path / "numpy_dense_system-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: numpy-dense-system\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text("[scifact_harness.systems]\nnumpy-dense = numpy_dense:SYSTEM\n")
    (info / "top_level.txt").write_text("numpy_dense\n")
    (tmp_path / "numpy_dense.py").write_bytes((EXAMPLES / "numpy_dense.py").read_bytes())
    monkeypatch.syspath_prepend(str(tmp_path))
    builder = make_builder("tiny-test", SearchConfig(), "numpy-dense")
    assert builder.modes == ("vector_only",)
    builder.close()


def test_the_command_line_runs_a_plugin_and_names_a_wrong_one(tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(EXAMPLES)])}
    base = [sys.executable, "-m", "fixtures.tiny_cli", "run", "--corpus", str(tiny_corpus.path),
            "--store-dir", str(tmp_path / "store"), "--output-dir", str(tmp_path / "out"), "--split", "calibration"]
    done = subprocess.run([*base, "--system", SPEC, "--no-validate"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "vector_only" in done.stdout and "--system numpy_dense:SYSTEM" in done.stdout
    assert "fts_only" not in done.stdout.split("next")[0]
    wrong = subprocess.run([*base, "--system", "numpy_dense:NOPE"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr  # input you can fix
    assert "has no attribute 'NOPE'" in wrong.stderr and len(wrong.stderr.strip().splitlines()) == 1

"""Publishing what was frozen, whatever the system offers: the documented one-mode example plugin is bundled with no
change to the harness (no comparison, CLAIMS.md and the report naming the system and how each lane was verified),
and a freeze of two of the built-in modes bundles a comparison of exactly those two."""

import json
import re
import sys
from pathlib import Path

import pytest

from fixtures.clean_checkout import mark_clean_checkout
from harness.corpus.contract import Contract
from harness.errors import HarnessError
from harness.evaluation.comparison.artifact import CompareRequest, compare
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.publish.bundle import BundleError, make_bundle
from harness.publish.exports.exports import export
from harness.publish.verdicts import validator_judgement
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import make_builder
from harness.validator.pipeline import validate_comparison

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SPEC = "numpy_dense:SYSTEM"


@pytest.fixture
def examples_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    for name in [n for n in sys.modules if n == "numpy_dense"]:
        monkeypatch.delitem(sys.modules, name)


def _evaluate(corpus: CorpusFixture, contract: Contract, root: Path, spec: str, modes: tuple[str, ...]) -> Path:
    """Calibration, freeze of `modes`, held-out: the flow a user follows, into root/out."""
    out, store = root / "out", root / "store"
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="calibration", system=spec),
              contract)
    system = make_builder(contract.namespace, SearchConfig(), spec).open(corpus, store)
    freeze_configuration(fixture=corpus, system=system, contract=contract, modes=modes, output_dir=out, argv=[],
                         allow_dirty=True, replace=False, allow_failed_calibration=False)
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="heldout", system=spec,
                         modes=modes), contract)
    return out


def _files(bundle: Path) -> set[str]:
    return {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}


@pytest.mark.usefixtures("examples_on_path")
def test_the_example_plugin_is_bundled_with_what_was_verified(tiny_corpus: CorpusFixture, tiny: Contract,
                                                              tmp_path: Path, own_heldout_record: Path) -> None:
    out = _evaluate(tiny_corpus, tiny, tmp_path, SPEC, ("vector_only",))
    mark_clean_checkout(out)
    bundle = make_bundle(out, tmp_path / "bundle")
    names = _files(bundle)
    assert {n for n in names if n.startswith("artifacts/")} == {
        f"artifacts/tiny-test-vector_only-{s}.{ext}" for s in ("calibration", "heldout")
        for ext in ("jsonl", "aggregate.json")}
    assert not [n for n in names if "comparison" in n]
    assert {"exports/tiny-test-vector_only-heldout.run", "exports/tiny-test-heldout.qrels",
            "report.html", "report.md", "CLAIMS.md"} <= names
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert "`numpy-dense` 1.0.0 (`--system numpy_dense:SYSTEM`" in claims
    assert "- `vector_only` heldout: dense: recomputed independently from the fixture's vectors" in claims
    assert "No comparison for calibration, heldout: a comparison needs two modes or more" in claims
    looks = ("Held-out looks: 1 configuration (system, configuration digest, store digest) saw tiny-test's held-out "
             "split on this machine, whatever fixture build they ran, in 1 held-out or all-query run in all: read now "
             "from this machine's held-out record")
    assert f"- {looks}" in claims, [line for line in claims.splitlines() if "Held-out looks" in line]
    assert f"held-out record {own_heldout_record}" not in claims  # named by its id, not a local path
    for report in ("report.html", "report.md"):
        text = (bundle / report).read_text(encoding="utf-8")
        assert "system numpy-dense 1.0.0, 1 retrieval mode: vector_only (dense)" in text
        assert "One mode (vector_only) on this split: there is nothing to compare." in text
        assert "recomputed independently from the fixture&#x27;s vectors" in text or (
            "recomputed independently from the fixture's vectors" in text)
        assert "fts_only" not in text and "Where hybrid" not in text
        assert looks in text or looks.replace("'", "&#x27;") in text
    written = export(out, tmp_path / "exports")
    assert sorted(p.name for p in written if p.suffix == ".run") == [
        "tiny-test-vector_only-calibration.depth100.run", "tiny-test-vector_only-calibration.run",
        "tiny-test-vector_only-heldout.depth100.run", "tiny-test-vector_only-heldout.run"]
    with pytest.raises(HarnessError, match="a comparison needs two modes or more"):
        compare(CompareRequest(output_dir=out, split="heldout"), validator_judgement)


def test_two_frozen_modes_are_compared_and_bundled(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path,
                                                   own_heldout_record: Path) -> None:
    out = _evaluate(tiny_corpus, tiny, tmp_path, "builtin", ("fts_only", "hybrid"))
    assert (out / "tiny-test-vector_only-calibration.aggregate.json").is_file()  # run, but not frozen: not bundled
    mark_clean_checkout(out)
    path, document, _ = compare(CompareRequest(output_dir=out, split="heldout"), validator_judgement)
    assert [c["a"] + " - " + c["b"] for c in document["comparisons"]] == ["hybrid - fts_only"]
    assert validate_comparison(path).eligible
    bundle = make_bundle(out, tmp_path / "bundle")
    names = _files(bundle)
    assert not [n for n in names if "vector_only" in n]
    bundled = json.loads((bundle / "artifacts/tiny-test-comparison-calibration.json").read_bytes())
    assert [entry["mode"] for entry in bundled["inputs"]] == ["fts_only", "hybrid"]
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert "- `hybrid` heldout: lexical: recomputed independently from the fixture and the live store" in claims
    harness_digest = json.loads((bundle / "environment.json").read_bytes())["source"]["harness"]["sha256"]
    assert (f"- The system's source: the harness itself (harness digest `{harness_digest}`, the source above); the "
            "bundle holds no copy of it") in claims  # the built-in system's source is the harness: not copied
    assert not (bundle / "system-source").exists()
    assert json.loads((bundle / "system-source.json").read_bytes())["files"] == {}
    assert "Latency scope: the retrieval call: query tokenization and fixture vector lookup, lane scoring over every " \
           "document" in claims  # the built-in's own scope, for the built-in only
    assert "Held-out looks: 1 configuration (system, configuration digest, store digest) saw tiny-test's held-out " \
           "split on this machine, whatever fixture build they ran, in 2 held-out or all-query runs in all" in claims, [
        line for line in claims.splitlines() if "Held-out looks" in line]  # one look per frozen mode
    (out / "tiny-test-hybrid-heldout.aggregate.json").unlink()
    with pytest.raises(BundleError, match=re.escape("lacks tiny-test-hybrid-heldout.aggregate.json")):
        make_bundle(out, tmp_path / "again")

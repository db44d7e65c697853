"""Comparisons between systems: the built-in system and the example plugin on the tiny corpus, a hypothesis
declared at the plugin's freeze, held-out runs of both, and the comparison file (docs/comparing-systems.md)."""

import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

import pytest

from fixtures.clean_checkout import mark_clean_checkout
from harness.corpus.contract import Contract
from harness.errors import RefusedError
from harness.evaluation.comparison.inputs import ComparisonRefused
from harness.evaluation.comparison.run_specs import RunSpec, RunSpecError, check_runs, parse_run
from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.gates.hypothesis import HypothesisRefused
from harness.evaluation.gates.hypothesis_terms import FamilyRequest, HypothesisError, HypothesisRequest
from harness.evaluation.history.heldout_record import RECORD_NAME, RECORD_VARIABLE
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical
from harness.publish.bundle import make_bundle
from harness.publish.report.report import write_report
from harness.publish.text.markdown_text import inert
from harness.publish.verdicts import validator_judgement
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import make_builder

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = "numpy_dense:SYSTEM"


@pytest.fixture(scope="module")
def examples_on_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The example plugin importable, and a held-out record of this module's own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(ROOT / "examples"))
        for name in [n for n in sys.modules if n == "numpy_dense"]:
            patch.delitem(sys.modules, name)
        patch.setenv(RECORD_VARIABLE, str(tmp_path_factory.mktemp("looks") / RECORD_NAME))
        yield


def _calibrate_and_freeze(corpus: CorpusFixture, contract: Contract, out: Path, spec: str, modes: tuple[str, ...],
                          hypothesis: HypothesisRequest | None = None) -> Path:
    store = out.parent / f"{out.name}-store"
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="calibration", system=spec,
                         modes=modes), contract)
    system = make_builder(contract.namespace, SearchConfig(), spec).open(corpus, store)
    freeze_configuration(fixture=corpus, system=system, contract=contract, modes=modes, output_dir=out, argv=[],
                         allow_dirty=True, replace=False,
                         hypotheses=None if hypothesis is None else FamilyRequest.of(hypothesis))
    return store


def _heldout(corpus: CorpusFixture, contract: Contract, out: Path, store: Path, spec: str,
             modes: tuple[str, ...]) -> None:
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="heldout", system=spec,
                         modes=modes), contract)
    mark_clean_checkout(out)


@pytest.fixture(scope="module")
def two_systems(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path_factory: pytest.TempPathFactory,
                examples_on_path: None) -> tuple[Path, Path]:
    """The built-in system (fts_only, hybrid) and the example plugin (vector_only, declaring vector_only > fts_only
    against the built-in's freeze), both frozen, both run on held-out."""
    root = tmp_path_factory.mktemp("systems")
    builtin, plugin = root / "builtin", root / "plugin"
    builtin_store = _calibrate_and_freeze(tiny_corpus, tiny, builtin, "builtin", ("fts_only", "hybrid"))
    plugin_store = _calibrate_and_freeze(tiny_corpus, tiny, plugin, PLUGIN, ("vector_only",),
                                         HypothesisRequest("vector_only > fts_only", builtin))
    declared = json.loads((plugin / "freeze.json").read_bytes())["created_at"]
    while time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) <= declared:
        time.sleep(0.05)  # receipts state whole seconds: a run after the declaration starts in a later second
    _heldout(tiny_corpus, tiny, builtin, builtin_store, "builtin", ("fts_only", "hybrid"))
    _heldout(tiny_corpus, tiny, plugin, plugin_store, PLUGIN, ("vector_only",))
    return builtin, plugin


def _compare(out: Path, split: str, *runs: str, **options: Any) -> dict[str, Any]:
    request = SystemsRequest(output_dir=out, split=split, runs=[parse_run(r) for r in runs], **options)
    path, document, _ = compare_systems(request, validator_judgement)
    assert json.loads(path.read_bytes()) == document
    return document


def test_a_declared_hypothesis_is_confirmatory_on_heldout(two_systems: tuple[Path, Path], tmp_path: Path) -> None:
    builtin, plugin = two_systems
    freeze = json.loads((plugin / "freeze.json").read_bytes())
    baseline_freeze = json.loads((builtin / "freeze.json").read_bytes())
    [declared] = freeze["hypotheses"]["members"]
    assert declared["b"]["freeze_sha256"] == baseline_freeze["freeze_sha256"]
    document = _compare(tmp_path / "compared", "heldout", f"builtin={builtin}", f"plugin={plugin}")
    assert document["inputs_validation"]["verdicts"] == dict.fromkeys(
        ["builtin/fts_only", "builtin/hybrid", "plugin/vector_only"], "ELIGIBLE")
    # neither run chose a mode, and no arms share one: only the declared pair is compared, as declared
    assert [(c["a"], c["b"], c["status"]) for c in document["comparisons"]] == [
        ("plugin/vector_only", "builtin/fts_only", "confirmatory")]
    [family] = document["hypotheses"]
    [hypothesis] = family["members"]
    assert (hypothesis["status"], family["declared_by"], hypothesis["pair"]) == (
        "confirmatory", "plugin", {"a": "plugin/vector_only", "b": "builtin/fts_only"})
    stats = document["comparisons"][0]["metrics"]["ndcg_at_10"]
    result = hypothesis["result"]
    assert (result["mean_difference"], result["p_value"], result["holm_p_value"]) == (
        stats["mean_difference"], stats["randomization"]["p_value"], stats["randomization"]["p_value"])
    assert result["test_ran"] == "two-sided paired randomization test, H1: plugin/vector_only != builtin/fts_only"
    assert result["supported"] == (result["p_value"] < 0.05 and result["mean_difference"] > 0)
    assert [run["output_dir"] for run in document["runs"]] == [
        os.path.relpath(builtin, tmp_path / "compared"), os.path.relpath(plugin, tmp_path / "compared")]


def test_the_same_hypothesis_is_exploratory_elsewhere(two_systems: tuple[Path, Path], tmp_path: Path) -> None:
    builtin, plugin = two_systems
    chosen = _compare(tmp_path / "c1", "heldout", f"builtin:hybrid={builtin}", f"plugin={plugin}")
    assert [(c["a"], c["b"], c["status"]) for c in chosen["comparisons"]] == [
        ("plugin/vector_only", "builtin/hybrid", "exploratory")]
    [hypothesis] = chosen["hypotheses"][0]["members"]
    assert (hypothesis["status"], hypothesis["pair"], hypothesis["result"]) == ("exploratory", None, None)
    assert hypothesis["reason"].startswith("no other run here was frozen as sha256:")
    calibration = _compare(tmp_path / "c2", "calibration", f"builtin={builtin}", f"plugin:vector_only={plugin}")
    [hypothesis] = calibration["hypotheses"][0]["members"]
    assert (hypothesis["status"], hypothesis["reason"]) == ("exploratory",
                                                            "a hypothesis is tested on the held-out split only")
    assert [(c["a"], c["b"], c["status"]) for c in calibration["comparisons"]] == [
        ("plugin/vector_only", "builtin/fts_only", "exploratory"),
        ("plugin/vector_only", "builtin/hybrid", "exploratory")]
    assert calibration["scope"].startswith("calibration queries only")


def test_mismatched_runs_are_refused(two_systems: tuple[Path, Path], tmp_path: Path) -> None:
    builtin, plugin = two_systems
    with pytest.raises(ComparisonRefused, match="same run"):
        _compare(tmp_path / "c", "heldout", f"one={builtin}", f"two={builtin}")
    original = (plugin / "freeze.json").read_bytes()
    edited = json.loads(original)
    edited["hypotheses"]["members"][0]["direction"] = "a_less"
    edited["freeze_sha256"] = sha256_canonical({k: v for k, v in edited.items() if k != "freeze_sha256"})
    try:
        (plugin / "freeze.json").write_text(json.dumps(edited), encoding="utf-8")
        with pytest.raises(ComparisonRefused, match="restore the freeze record they ran under"):
            _compare(tmp_path / "c", "heldout", f"builtin={builtin}", f"plugin={plugin}")
    finally:
        (plugin / "freeze.json").write_bytes(original)


@pytest.mark.parametrize(("text", "problem"), [
    ("plugin", "NAME=OUTPUT_DIR"), ("=dir", "the name ''"), ("a b=dir", "the name 'a b'"),
    ("x:bm25=dir", "the mode 'bm25'")])
def test_a_malformed_run_is_named(text: str, problem: str) -> None:
    with pytest.raises(RunSpecError, match=problem.replace("(", r"\(")):
        parse_run(text)
    assert parse_run("tfidf:hybrid=a=b") == RunSpec("tfidf", Path("a=b"), "hybrid")


def test_the_set_of_runs_is_checked() -> None:
    one, other = RunSpec("a", Path("a"), None), RunSpec("b", Path("b"), None)
    check_runs([one, other], "b")
    for runs, baseline, problem in (([one], None, "needs two --run or more; got 1"), ([], None, "got 0"),
                                    ([one, one], None, "a is given more than once"),
                                    ([one, other], "c", "--baseline c: not one of the runs")):
        with pytest.raises(RunSpecError, match=re.escape(problem)):
            check_runs(runs, baseline)


def test_a_hypothesis_needs_a_frozen_baseline_of_the_same_fixture(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                  tmp_path: Path) -> None:
    with pytest.raises(HypothesisRefused, match=r"no freeze\.json there"):
        _calibrate_and_freeze(tiny_corpus, tiny, tmp_path / "a", "builtin", ("fts_only",),
                              HypothesisRequest("fts_only > fts_only", tmp_path / "nowhere"))
    with pytest.raises(HypothesisError, match="not a mode"):
        _calibrate_and_freeze(tiny_corpus, tiny, tmp_path / "b", "builtin", ("fts_only",),
                              HypothesisRequest("bm25 > fts_only", tmp_path))


def test_the_bundle_publishes_the_comparison_with_every_run_it_read(two_systems: tuple[Path, Path],
                                                                     tmp_path: Path) -> None:
    builtin, plugin = two_systems
    work = tmp_path / "plugin"
    shutil.copytree(plugin, work)
    _compare(work, "heldout", f"builtin={builtin}", f"plugin={work}")
    bundle = make_bundle(work, tmp_path / "bundle")
    listed = set(json.loads((bundle / "MANIFEST.json").read_bytes())["files"])
    runs = {f"artifacts/runs/builtin/tiny-test-{mode}-heldout.{kind}" for mode in ("fts_only", "hybrid")
            for kind in ("jsonl", "aggregate.json")}
    assert runs | {"artifacts/runs/builtin/freeze.json", "artifacts/runs/plugin/freeze.json",
                   "artifacts/tiny-test-systems-heldout.json",
                   "validation/comparisons/tiny-test-systems-heldout.validation.json"} <= listed
    report = json.loads((bundle / "validation/comparisons/tiny-test-systems-heldout.validation.json").read_bytes())
    assert report["eligible"] is True, report
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    document = json.loads((bundle / "artifacts/tiny-test-systems-heldout.json").read_bytes())
    [hypothesis] = document["hypotheses"][0]["members"]
    assert "## Systems compared" in claims
    assert "That the held-out split was unseen rests on the publisher's held-out record" in claims
    assert f"Scope: {document['scope']}." in claims and "unseen before the freeze as the publisher's" in claims
    assert ("- [confirmatory, on the publisher's attested held-out record] plugin/vector_only \u2212 builtin/fts_only "
            "on held-out") in claims, claims
    if hypothesis["result"]["supported"]:
        assert "The claim of superiority these runs support:" in claims
    else:
        assert "No claim of superiority: no confirmatory hypothesis here is supported" in claims
    decides = "Decided by the declared test's two-sided p-value, Holm-adjusted over the family of 1 hypothesis"
    assert inert(decides) in claims
    for name, written in (("report.html", escape), ("report.md", inert)):
        page = (bundle / name).read_text(encoding="utf-8")
        assert "Systems compared" in page and written(decides) in page


def test_a_run_changed_after_the_comparison_refuses_the_bundle_and_the_report(two_systems: tuple[Path, Path],
                                                                              tmp_path: Path) -> None:
    builtin, plugin = two_systems
    work, baseline = tmp_path / "plugin", tmp_path / "builtin"
    shutil.copytree(plugin, work)
    shutil.copytree(builtin, baseline)
    _compare(work, "heldout", f"builtin={baseline}", f"plugin={work}")
    rows = baseline / "tiny-test-fts_only-heldout.jsonl"
    rows.write_bytes(rows.read_bytes() + b"\n")
    with pytest.raises(RefusedError, match=re.escape(f"{rows} has changed since")):
        make_bundle(work, tmp_path / "bundle")
    assert not (tmp_path / "bundle").exists()
    with pytest.raises(RefusedError, match=re.escape(f"{rows} has changed since")):
        write_report(work, tmp_path / "r.html", tmp_path / "r.md", validated=True, replace=False)

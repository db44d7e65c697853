"""Two evaluations of the tiny corpus for the comparison between systems, each in a store and output directory of its
own, through the harness's own evaluation path: `builtin` (the built-in system as configured by default) and `k1`
(the built-in system with another BM25 k1). builtin is calibrated and frozen first; then k1 is calibrated and frozen
with a family of three hypotheses declared against builtin's freeze (`k1_family`); then both run held-out.

The family is declared as `freeze --hypothesis "hybrid > fts_only" --hypothesis "fts_only != fts_only" --hypothesis
"vector_only < fts_only" --hypothesis-baseline BUILTIN --hypothesis-metric ndcg_at_10 --hypothesis-metric mrr_at_10
--hypothesis-metric ndcg_at_10 --hypothesis-test randomization --hypothesis-test t_test --hypothesis-test t_test
--hypothesis-sided one --hypothesis-sided two --hypothesis-sided one` declares it.
"""

import time
from dataclasses import dataclass
from pathlib import Path

from fixtures.archives import tiny_contract
from fixtures.clean_checkout import mark_clean_checkout
from harness.corpus.contract import Contract
from harness.evaluation.gates import freeze
from harness.evaluation.gates.hypothesis_terms import FamilyRequest, HypothesisRequest
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import LexicalConfig, SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem

from .support import Json

ARGV = ("pytest", "test_validate")


def k1_family(baseline: Path) -> FamilyRequest:
    """k1's family: a one-sided randomization test, a two-sided t-test and a one-sided t-test, each pair of arms once
    (the rule gives the second's pair; the first's and the third's are appended)."""
    return FamilyRequest.of(HypothesisRequest("hybrid > fts_only", baseline, sided="one"),
                            HypothesisRequest("fts_only != fts_only", baseline, "mrr_at_10", "t_test"),
                            HypothesisRequest("vector_only < fts_only", baseline, test="t_test", sided="one"))
OTHER_K1 = 0.6


@dataclass(frozen=True)
class SystemsRuns:
    """The output directories of the two evaluations; builtin's freeze record is the hypothesis's baseline."""

    builtin: Path
    k1: Path


def _calibrated_and_frozen(out: Path, fixture: CorpusFixture, contract: Contract, config: SearchConfig,
                           hypotheses: FamilyRequest | None = None) -> Json:
    store, _ = build_store(out.parent / f"{out.name}-store", fixture, contract.namespace, config.lexical)
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="calibration",
                         config=config, argv=ARGV), contract)
    frozen = freeze.freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract,
                                         modes=MODES, output_dir=out, argv=list(ARGV), allow_dirty=True, replace=False,
                                         hypotheses=hypotheses)
    return frozen.record


def _held_out(out: Path, fixture: CorpusFixture, contract: Contract, config: SearchConfig) -> None:
    run_split(Evaluation(corpus=fixture.path, store_dir=out.parent / f"{out.name}-store", output_dir=out,
                         split="heldout", config=config, argv=ARGV), contract)


def make_systems_runs(fixture_path: Path, root: Path) -> SystemsRuns:
    contract, fixture = tiny_contract(), load_fixture(fixture_path)
    runs = SystemsRuns(root / "builtin", root / "k1")
    configs = {runs.builtin: SearchConfig(), runs.k1: SearchConfig(lexical=LexicalConfig(k1=OTHER_K1))}
    _calibrated_and_frozen(runs.builtin, fixture, contract, configs[runs.builtin])
    declared = _calibrated_and_frozen(runs.k1, fixture, contract, configs[runs.k1],
                                      k1_family(runs.builtin))
    while time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) <= declared["created_at"]:
        time.sleep(0.05)  # receipts state whole seconds: a run "after" the declaration starts in a later second
    for out, config in configs.items():
        _held_out(out, fixture, contract, config)
        mark_clean_checkout(out)
    return runs

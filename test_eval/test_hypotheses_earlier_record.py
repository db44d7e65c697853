"""A freeze record frozen before families of hypotheses holds its one hypothesis in `hypothesis` (its own alpha, tested
two-sided). Its held-out receipts bind its digest, so it is never frozen again: the comparison between systems reads
it as a family of one, tested two-sided at its own alpha, and the validator, reading it with its own code, agrees."""

import json
import time
from pathlib import Path
from typing import Any

import pytest

from fixtures.clean_checkout import mark_clean_checkout
from harness.corpus.contract import Contract
from harness.evaluation.comparison.run_specs import parse_run
from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems
from harness.evaluation.gates import freeze
from harness.evaluation.gates.hypothesis_terms import FamilyRequest, HypothesisRequest
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical
from harness.publish.text.systems_text import hypothesis_lines
from harness.publish.verdicts import validator_judgement
from harness.schema_check import validate as validate_schema
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.pipeline import validate_systems_comparison


def _as_earlier_records_were(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with its family of one written the way a freeze before families wrote it, its digest resealed."""
    family = record.pop("hypotheses", None)
    if family is not None:
        [member] = family["members"]
        record["hypothesis"] = {**{k: v for k, v in member.items() if k != "sided"}, "alpha": family["alpha"]}
        record.pop("freeze_sha256")
        record["freeze_sha256"] = sha256_canonical(record)
    return record


def _frozen(corpus: CorpusFixture, contract: Contract, root: Path, modes: tuple[str, ...],
            hypotheses: FamilyRequest | None = None) -> tuple[Path, Path]:
    store, out = root / "store", root / "out"
    built, _ = build_store(store, corpus, contract.namespace, SearchConfig().lexical)
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="calibration", modes=modes),
              contract)
    freeze.freeze_configuration(fixture=corpus, system=BuiltinSystem(built, SearchConfig()), contract=contract,
                                modes=modes, output_dir=out, argv=["test"], allow_dirty=True, replace=False,
                                hypotheses=hypotheses)
    return store, out


def test_an_earlier_single_hypothesis_is_read_as_a_family_of_one(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                  tmp_path: Path, own_heldout_record: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    baseline = _frozen(tiny_corpus, tiny, tmp_path / "base", ("fts_only",))
    written = freeze.current_record
    monkeypatch.setattr(freeze, "current_record", lambda **terms: _as_earlier_records_were(written(**terms)))
    declaring = _frozen(tiny_corpus, tiny, tmp_path / "mine", ("hybrid",), FamilyRequest.of(
        HypothesisRequest("hybrid > fts_only", baseline[1]), alpha=0.01))
    monkeypatch.setattr(freeze, "current_record", written)  # not undo(): the test's own held-out record stays set
    record = json.loads((declaring[1] / "freeze.json").read_bytes())
    assert "hypotheses" not in record and record["hypothesis"]["alpha"] == 0.01
    validate_schema(record, "freeze")
    while time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) <= record["created_at"]:
        time.sleep(0.05)  # receipts state whole seconds: a run after the declaration starts in a later second
    for (store, out), modes in ((baseline, ("fts_only",)), (declaring, ("hybrid",))):
        run_split(Evaluation(corpus=tiny_corpus.path, store_dir=store, output_dir=out, split="heldout", modes=modes),
                  tiny)
        mark_clean_checkout(out)
    request = SystemsRequest(output_dir=tmp_path / "compared", split="heldout",
                             runs=[parse_run(f"base={baseline[1]}"), parse_run(f"mine={declaring[1]}")])
    path, document, _ = compare_systems(request, validator_judgement)
    [family] = document["hypotheses"]
    assert (family["freeze_field"], family["alpha"], family["freeze_sha256"]) == (
        "hypothesis", 0.01, record["freeze_sha256"])
    [member] = family["members"]
    single = {k: v for k, v in record["hypothesis"].items() if k != "alpha"}
    assert member["declaration"] == {**single, "sided": "two"}
    assert member["status"] == "confirmatory", member["reason"]
    result = member["result"]
    assert result["test_ran"] == "two-sided paired randomization test, H1: mine/hybrid != base/fts_only"
    assert result["p_value"] == result["holm_p_value"] == \
        document["comparisons"][0]["metrics"]["ndcg_at_10"]["randomization"]["p_value"]
    assert "(a family of one: unadjusted)" in hypothesis_lines(document)[0]
    report = validate_systems_comparison(path)
    assert report.eligible, report.verdict()
    assert next(c for c in report.checks if c.name == "systems.hypothesis").status == "pass"

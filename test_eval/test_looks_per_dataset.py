"""The held-out record counts looks per dataset, not per fixture bytes; names the machine by its machine id, not its
host name; and a later run leaves a stored verdict on an earlier one standing. A hypothesis declared after the
dataset's held-out split was looked at reads as exploratory, in the harness and in the validator alike.
"""

import copy
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.clean_checkout import mark_clean_checkout
from harness.corpus.contract import Contract
from harness.evaluation.comparison.run_specs import parse_run
from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.gates.hypothesis_terms import FamilyRequest, HypothesisRequest
from harness.evaluation.history import heldout_record
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture, write_fixture
from harness.publish.verdicts import validator_judgement
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.core.reading import recording
from harness.validator.core.report import Report
from harness.validator.history import check_looks
from harness.validator.pipeline import validate, validate_systems_comparison
from harness.validator.verdicts.inputs import changed, subject_roles, taken


def _check(report: Report, name: str) -> Any:
    return next(c for c in report.checks + report.attestations if c.name == name)


def _frozen(corpus: CorpusFixture, contract: Contract, root: Path, modes: tuple[str, ...],
            hypothesis: HypothesisRequest | None = None) -> tuple[Path, Path]:
    store, out = root / "store", root / "out"
    built, _ = build_store(store, corpus, contract.namespace, SearchConfig().lexical)
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="calibration", modes=modes),
              contract)
    freeze_configuration(fixture=corpus, system=BuiltinSystem(built, SearchConfig()), contract=contract, modes=modes,
                         output_dir=out, argv=["test"], allow_dirty=True, replace=False,
                         allow_failed_calibration=False,
                         hypotheses=None if hypothesis is None else FamilyRequest.of(hypothesis))
    return store, out


def _heldout(corpus: CorpusFixture, contract: Contract, store: Path, out: Path, modes: tuple[str, ...]) -> ModeRun:
    runs = run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="heldout", modes=modes),
                     contract)
    mark_clean_checkout(out)
    return runs[-1]


def _moved_by_one_ulp(corpus: CorpusFixture, where: Path) -> CorpusFixture:
    vectors = np.concatenate([corpus.document_vectors, corpus.query_vectors]).astype(np.float32)
    vectors[0, 0] = np.nextafter(vectors[0, 0], np.float32(np.inf))
    where.mkdir(parents=True)
    write_fixture(copy.deepcopy(corpus.data), vectors, where / "moved.json")
    return load_fixture(where / "moved.json")


def test_a_fixture_moved_by_one_ulp_counts_the_earlier_looks(tiny_corpus: CorpusFixture, tiny: Contract,
                                                              tmp_path: Path, own_heldout_record: Path) -> None:
    first = _heldout(tiny_corpus, tiny, *_frozen(tiny_corpus, tiny, tmp_path / "a", ("fts_only",)), ("fts_only",))
    moved = _moved_by_one_ulp(tiny_corpus, tmp_path / "moved")
    assert moved.sha256 != tiny_corpus.sha256
    again = _heldout(moved, tiny, *_frozen(moved, tiny, tmp_path / "b", ("fts_only",)), ("fts_only",))
    looks = again.aggregate["receipt"]["heldout_looks"]
    assert looks["looks_before"] == 1 and looks["dataset"] == first.aggregate["receipt"]["heldout_looks"]["dataset"]
    assert looks["earlier_looks_at"] == [heldout_record.read_record().entries[0]["recorded_at"]]  # type: ignore[union-attr]
    report = validate(again.aggregate_path, embeddings=False)
    assert _check(report, "heldout.record").status == "pass", _check(report, "heldout.record").line()
    forged = json.loads(again.aggregate_path.read_bytes())
    forged["receipt"]["heldout_looks"].update(looks_before=0, earlier_looks_at=[])
    again.aggregate_path.write_text(json.dumps(forged), encoding="utf-8")
    check = _check(validate(again.aggregate_path, embeddings=False), "heldout.record")
    assert check.status == "fail" and "the record shows 1 by 1 before position 2" in check.detail, check.line()


def test_another_machine_of_the_same_host_name_attests_the_looks(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, own_heldout_record: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = _heldout(tiny_corpus, tiny, *_frozen(tiny_corpus, tiny, tmp_path, ("fts_only",)), ("fts_only",))
    monkeypatch.setenv(heldout_record.RECORD_VARIABLE, str(tmp_path / "this-readers.sqlite3"))
    heldout_record.prepare()  # a record of the reader's own, with another id
    monkeypatch.setattr(check_looks, "this_machine", lambda: "sha256:" + "0" * 64)
    report = validate(run.aggregate_path, embeddings=False)
    assert "heldout.record" not in [c.name for c in report.failed]
    assert "not verifiable here" in _check(report, "heldout.looks").detail
    monkeypatch.undo()


def test_a_later_run_leaves_the_verdict_on_an_earlier_one_standing(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, own_heldout_record: Path) -> None:
    first = _heldout(tiny_corpus, tiny, *_frozen(tiny_corpus, tiny, tmp_path / "a", ("fts_only",)), ("fts_only",))
    roles = subject_roles(first.aggregate_path, None, None)
    with recording() as reading:
        validate(first.aggregate_path, embeddings=False)
    digests, problem = taken(reading, roles)
    assert digests is not None, problem
    assert str(own_heldout_record) not in digests.files and str(own_heldout_record) in digests.records
    _heldout(tiny_corpus, tiny, *_frozen(tiny_corpus, tiny, tmp_path / "b", ("fts_only",)), ("fts_only",))
    assert list(changed(digests.record(), roles)) == []
    with heldout_record._connect(own_heldout_record) as connection:  # a rewrite of its own rows is seen
        connection.execute("DROP TRIGGER looks_no_update")
        connection.execute("UPDATE looks SET entry = entry || ' ' WHERE position = 1")
    assert list(changed(digests.record(), roles)) == [f"the rows of {own_heldout_record} up to position 1"]


def test_a_hypothesis_declared_after_a_peek_is_exploratory(tiny_corpus: CorpusFixture, tiny: Contract,
                                                           tmp_path: Path, own_heldout_record: Path) -> None:
    both = ("fts_only", "hybrid")
    _heldout(tiny_corpus, tiny, *_frozen(tiny_corpus, tiny, tmp_path / "peek", both), both)  # two looks
    baseline = _frozen(tiny_corpus, tiny, tmp_path / "base", ("fts_only",))
    declaring = _frozen(tiny_corpus, tiny, tmp_path / "new", ("hybrid",),
                        HypothesisRequest("hybrid > fts_only", baseline[1]))
    declared = json.loads((declaring[1] / "freeze.json").read_bytes())["created_at"]
    while time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) <= declared:
        time.sleep(0.05)
    _heldout(tiny_corpus, tiny, *baseline, ("fts_only",))
    _heldout(tiny_corpus, tiny, *declaring, ("hybrid",))
    request = SystemsRequest(output_dir=tmp_path / "compared", split="heldout",
                             runs=[parse_run(f"base={baseline[1]}"), parse_run(f"new={declaring[1]}")])
    path, document, _ = compare_systems(request, validator_judgement)
    [family] = document["hypotheses"]
    [hypothesis] = family["members"]
    assert (hypothesis["status"], hypothesis["result"]) == ("exploratory", None)
    assert hypothesis["reason"] == (f"2 earlier held-out looks at tiny-test before the declaration at {declared}, as "
                                    "the arms' receipts attest")
    assert [c["status"] for c in document["comparisons"]] == ["exploratory"]
    attested = "as the publisher's attested held-out record shows"
    assert document["scope"] == (f"the {document['query_count']} held-out queries, not unseen before the freeze: 2 "
                                 f"earlier held-out looks at tiny-test, {attested}")
    honest = validate_systems_comparison(path, embeddings=False)
    assert [_check(honest, name).status for name in ("systems.hypothesis", "systems.experiment")] == ["pass", "pass"]
    forged = f"the {document['query_count']} held-out queries, unseen before the freeze {attested}"
    path.write_text(json.dumps({**document, "scope": forged}), encoding="utf-8")
    check = _check(validate_systems_comparison(path, embeddings=False), "systems.experiment")
    assert check.status == "fail" and "not unseen before the freeze: 2 earlier" in str(check.found), check.line()
    hypothesis.update(status="confirmatory")
    document["comparisons"][0]["status"] = "confirmatory"
    path.write_text(json.dumps(document), encoding="utf-8")
    check = _check(validate_systems_comparison(path, embeddings=False), "systems.hypothesis")
    assert check.status == "fail" and "is confirmatory, not exploratory" in str(check.found), check.line()

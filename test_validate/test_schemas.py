"""The JSON Schemas are valid 2020-12 schemas with versioned ids; emitted artifacts match them; bad ones do not."""

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from .support import MODES, SPLITS, CleanRun, Json

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "harness" / "schemas"
SCHEMA_FILES = sorted(SCHEMA_DIR.glob("*.schema.json"))
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schema(name: str) -> Json:
    value: Json = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return value


def errors(instance: Any, name: str) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in Draft202012Validator(schema(name)).iter_errors(instance)]


def test_the_nine_schemas_are_shipped() -> None:
    assert [p.name for p in SCHEMA_FILES] == ["aggregate.schema.json", "comparison.schema.json",
                                              "corpus-fixture.schema.json",
                                              "freeze.schema.json", "query-row.schema.json",
                                              "store-manifest.schema.json", "store-mapping.schema.json",
                                              "sweep.schema.json", "systems-comparison.schema.json"]


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=[p.name for p in SCHEMA_FILES])
def test_schema_is_a_valid_versioned_2020_12_schema(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == DRAFT
    name = path.name.removesuffix(".schema.json")
    assert re.fullmatch(rf"urn:scifact-harness:schema:{re.escape(name)}:v[1-9][0-9]*", document["$id"]), \
        document["$id"]
    assert document.get("type") == "object" and document.get("additionalProperties") is False


def test_schema_ids_are_distinct() -> None:
    ids = [json.loads(p.read_text(encoding="utf-8"))["$id"] for p in SCHEMA_FILES]
    assert len(set(ids)) == len(ids)


def load(path: Path) -> Json:
    value: Json = json.loads(path.read_text(encoding="utf-8"))
    return value


def test_emitted_fixture_matches_its_schema(clean_run: CleanRun) -> None:
    assert errors(load(clean_run.fixture_path), "corpus-fixture") == []


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("mode", MODES)
def test_emitted_rows_and_aggregate_match_their_schemas(clean_run: CleanRun, mode: str, split: str) -> None:
    rows = [json.loads(line) for line in clean_run.rows_path(mode, split).read_bytes().splitlines()]
    assert rows
    for row in rows:
        assert errors(row, "query-row") == [], row["query_id"]
    assert errors(load(clean_run.aggregate_path(mode, split)), "aggregate") == []


def test_emitted_freeze_matches_its_schema(clean_run: CleanRun) -> None:
    assert errors(load(clean_run.freeze_path), "freeze") == []


def test_store_mapping_and_manifest_match_their_schemas(clean_run: CleanRun) -> None:
    """The schemas, and beyond them the facts the validator relies on, checked by hand."""
    mapping = load(clean_run.store_dir / "mapping.json")
    assert errors(mapping, "store-mapping") == []
    assert errors(load(clean_run.store_dir / "store.json"), "store-manifest") == []
    fixture = load(clean_run.fixture_path)
    assert set(mapping) == {"schema", "namespace", "fixture_sha256", "documents", "doc_to_fact"}
    assert mapping["schema"] == "scifact-store-mapping-v1"
    assert mapping["namespace"] == fixture["contract"]["namespace"]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", mapping["fixture_sha256"])
    doc_to_fact = mapping["doc_to_fact"]
    assert mapping["documents"] == len(doc_to_fact) == len(fixture["documents"])
    assert set(doc_to_fact) == {d["doc_id"] for d in fixture["documents"]}
    assert all(type(fact) is int and fact >= 1 for fact in doc_to_fact.values())
    assert len(set(doc_to_fact.values())) == len(doc_to_fact)


Mutate = Callable[[Json], object]


def _drop(key: str) -> Mutate:
    return lambda value: value.pop(key)


INVALID: list[tuple[str, str, Mutate]] = [
    ("query-row", "missing-metrics", _drop("metrics")),
    ("query-row", "extra-field", lambda row: row.update(note="hand-edited")),
    ("query-row", "bad-digest", lambda row: row.update(query_sha256="sha256:XYZ")),
    ("query-row", "unknown-mode", lambda row: row.update(mode="bm25")),
    ("query-row", "metric-above-one", lambda row: row["metrics"].update(ndcg_at_10=1.5)),
    ("query-row", "rank-zero", lambda row: row["results"][0].update(rank=0)),
    ("query-row", "duplicate-ranked-ids", lambda row: row.update(ranked_doc_ids=["d01", "d01"])),
    ("query-row", "empty-qrels", lambda row: row.update(qrels={})),
    ("aggregate", "metric-above-one", lambda agg: agg["metrics"].update(recall_at_10=1.25)),
    ("aggregate", "row-count-zero", lambda agg: agg.update(row_count=0)),
    ("aggregate", "rows-path-escapes", lambda agg: agg.update(per_query_path="../elsewhere.jsonl")),
    ("aggregate", "freeze-without-digest", lambda agg: agg["receipt"].update(freeze={"file": "freeze.json"})),
    ("aggregate", "missing-receipt-profile", lambda agg: agg["receipt"].pop("profile")),
    ("aggregate", "unknown-split", lambda agg: agg.update(split="test")),
    ("aggregate", "missing-ledger", lambda agg: agg["receipt"].pop("ledger")),
    ("aggregate", "ledger-extra-field", lambda agg: agg["receipt"]["ledger"].update(note="hand-edited")),
    ("aggregate", "ledger-bad-digest", lambda agg: agg["receipt"]["ledger"]["run_started"].update(digest="sha256:0")),
    ("aggregate", "ledger-position-zero", lambda agg: agg["receipt"]["ledger"]["freeze"].update(position=0)),
    ("freeze", "wrong-schema-id", lambda rec: rec.update(schema="scifact-freeze-v0")),
    ("freeze", "bad-digest", lambda rec: rec.update(freeze_sha256="md5:0")),
    ("freeze", "missing-modes", _drop("modes")),
    ("freeze", "unknown-dirty-policy", lambda rec: rec["source"].update(dirty_state_policy="whatever")),
    ("corpus-fixture", "extra-field", lambda fx: fx.update(cached=True)),
    ("corpus-fixture", "wrong-schema-id", lambda fx: fx.update(schema="scifact-corpus-fixture-v2")),
    ("corpus-fixture", "missing-queries", _drop("queries")),
]


def clean_instance(clean_run: CleanRun, name: str) -> Json:
    if name == "query-row":
        row: Json = json.loads(clean_run.rows_path("hybrid", "calibration").read_bytes().splitlines()[0])
        return row
    return load({"aggregate": clean_run.aggregate_path("hybrid", "heldout"), "freeze": clean_run.freeze_path,
                 "corpus-fixture": clean_run.fixture_path}[name])


@pytest.mark.parametrize(("name", "mutate"), [(n, m) for n, _, m in INVALID], ids=[f"{n}-{i}" for n, i, _ in INVALID])
def test_hand_made_invalid_instances_are_rejected(clean_run: CleanRun, name: str, mutate: Mutate) -> None:
    instance = copy.deepcopy(clean_instance(clean_run, name))
    assert errors(instance, name) == []
    mutate(instance)
    assert errors(instance, name), f"{name} accepted an invalid instance"


def _member(**change: object) -> Json:
    return {"a": {"mode": "hybrid"}, "b": {"mode": "fts_only", "freeze_sha256": "sha256:" + "1" * 64,
                                           "system": {"name": "builtin", "version": "1"}, "output_dir": "../base"},
            "metric": "ndcg_at_10", "direction": "a_greater", "test": "randomization", "sided": "one",
            "statement": "hybrid > fts_only", **change}


FAMILIES: list[tuple[str, Mutate, bool]] = [
    ("a family", lambda rec: rec.update(hypotheses={"alpha": 0.05, "adjustment": "holm", "members": [
        _member(), _member(metric="mrr_at_10", test="t_test", sided="two")]}), True),
    ("an earlier record's single hypothesis", lambda rec: rec.update(hypothesis={
        **{k: v for k, v in _member().items() if k != "sided"}, "alpha": 0.05}), True),
    ("both", lambda rec: rec.update(hypothesis=None, hypotheses={"alpha": 0.05, "adjustment": "holm",
                                                                 "members": [_member()]}), False),
    ("a one-sided test of A != B", lambda rec: rec.update(hypotheses={"alpha": 0.05, "adjustment": "holm", "members": [
        _member(direction="two_sided", statement="hybrid != fts_only")]}), False),
    ("an empty family", lambda rec: rec.update(hypotheses={"alpha": 0.05, "adjustment": "holm", "members": []}),
     False),
    ("another adjustment", lambda rec: rec.update(hypotheses={"alpha": 0.05, "adjustment": "bonferroni",
                                                              "members": [_member()]}), False),
    ("a member without its sidedness", lambda rec: rec.update(hypotheses={"alpha": 0.05, "adjustment": "holm",
                                                                          "members": [_member(sided=None)]}), False),
    ("a family-wise alpha above 0.5", lambda rec: rec.update(hypotheses={"alpha": 0.6, "adjustment": "holm",
                                                                         "members": [_member()]}), False),
]


@pytest.mark.parametrize(("case", "mutate", "valid"), FAMILIES, ids=[case for case, _, _ in FAMILIES])
def test_the_freeze_records_hypotheses(clean_run: CleanRun, case: str, mutate: Mutate, valid: bool) -> None:
    """A family (`hypotheses`) or an earlier record's one `hypothesis`, never both; one-sided only with a direction."""
    record = copy.deepcopy(load(clean_run.freeze_path))
    mutate(record)
    assert (errors(record, "freeze") == []) is valid, (case, errors(record, "freeze"))

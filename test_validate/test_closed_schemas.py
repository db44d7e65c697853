"""Every object the schemas describe is closed: unknown fields are refused at every depth, and maps whose keys
are data constrain their keys and values instead.

The walk is mechanical, so an object added later without `additionalProperties: false` (or, for a data map,
without `propertyNames` and typed values) fails here. Genuine artifacts of every kind must still validate,
and an unknown field injected at any depth must be refused with a message naming where and what.
"""

import copy
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from fixtures.archives import tiny_archive, tiny_contract
from fixtures.ollama_server import FakeOllama
from harness.corpus.split import select
from harness.embedding.embedders.base import Embedder
from harness.embedding.embedders.local import LocalEmbedder
from harness.embedding.embedders.ollama import OllamaEmbedder
from harness.embedding.profiles import TextProfile, text_profile
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import run_mode
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.modes import SEARCHED as MODES
from harness.schema_check import SchemaViolation, conforms, validate
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import open_store
from harness.systems.builtin.system import BuiltinSystem
from harness.systems.protocol import SearchOutcome
from harness.validator.core.schemas import SCHEMA_DIR, violation
from harness.validator.self_test_run import generate

from .support import SPLITS, CleanRun, Json, Row

SCHEMA_NAMES = sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))
UNKNOWN = "unexpected_field"

# --- the mechanical walk ---------------------------------------------------------------------------------------

SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_VALUES = ("additionalProperties", "propertyNames", "items", "contains", "unevaluatedProperties")
# `then`/`else`/`not` only narrow the object they sit in (whose own keywords already close it) or $ref a
# definition that is walked on its own; `if` is a test and describes no document.
OVERLAYS = ("then", "else", "not")
OPENING = {"additionalProperties", "patternProperties"}  # what can admit a field


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _is_object(node: Json, overlay: bool) -> bool:
    types = node.get("type")
    types = types if isinstance(types, list) else [types]
    if overlay:  # a narrowing such as {"type": "object"} or {"propertyNames": {"enum": [...]}} adds no field
        return bool(OPENING & node.keys()) or ("object" in types and "properties" in node)
    return "object" in types or bool(
        (OPENING | {"propertyNames", "properties", "required", "minProperties"}) & node.keys())


def _subschema(node: Any, pointer: str, overlay: bool) -> list[str]:
    if (node is True or node == {}) and not overlay:
        return [f"{pointer} (untyped)"]
    return open_objects(node, pointer, overlay)


def open_objects(node: Any, pointer: str = "", overlay: bool = False) -> list[str]:
    """JSON pointers of every object schema that admits unknown fields (and of every untyped subschema)."""
    if not isinstance(node, dict):
        return []
    found = []
    if _is_object(node, overlay):
        extra = node.get("additionalProperties")
        closed = extra is False
        data_map = "propertyNames" in node and isinstance(extra, dict) and extra != {}
        if not (closed or data_map):
            found.append(pointer or "/")
        unlisted = sorted(set(node.get("required", [])) - set(node.get("properties", {})))
        if closed and unlisted:
            found.append(f"{pointer or '/'} requires unlisted {unlisted}")
    for key in SCHEMA_MAPS:
        for name, sub in node.get(key, {}).items():
            found += _subschema(sub, f"{pointer}/{key}/{_escape(name)}", overlay)
    for key in SCHEMA_LISTS:
        for index, sub in enumerate(node.get(key, [])):
            found += _subschema(sub, f"{pointer}/{key}/{index}", overlay)
    for key in SCHEMA_VALUES:
        if key in node:
            found += _subschema(node[key], f"{pointer}/{key}", overlay)
    for key in OVERLAYS:
        if key in node:
            found += open_objects(node[key], f"{pointer}/{key}", True)
    return found


def schema(name: str) -> Json:
    value: Json = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return value


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_object_is_closed_or_a_constrained_data_map(name: str) -> None:
    assert open_objects(schema(name)) == []


def test_the_walk_finds_open_objects() -> None:
    loose = {
        "type": "object", "additionalProperties": False, "required": ["a", "ghost"],
        "properties": {
            "a": {"type": "object", "required": ["x"]},
            "b": {"type": "array", "items": {"properties": {"x": {"type": "string"}}}},
            "c": {"type": "object", "additionalProperties": {"type": "integer"}},
            "d": True,
            "e": {"type": "object", "propertyNames": {"minLength": 1}, "additionalProperties": {}},
            "f": {"if": {"type": "object"}, "then": {"type": "object", "properties": {"y": {"type": "string"}}}},
            "g": {"type": "object", "additionalProperties": False, "properties": {"z": {"type": "string"}},
                  "if": {"required": ["z"]}, "then": {"required": ["z"], "properties": {"z": {"minLength": 1}}}},
        },
        "$defs": {"h": {"oneOf": [{"type": "null"}, {"type": "object"}]}},
    }
    assert open_objects(loose) == [
        "/ requires unlisted ['ghost']", "/properties/a", "/properties/b/items", "/properties/c",
        "/properties/d (untyped)", "/properties/e", "/properties/e/additionalProperties (untyped)",
        "/properties/f/then", "/$defs/h/oneOf/1"]


def test_definitions_shared_between_schemas_are_identical() -> None:
    """The schemas are self-contained, so shared definitions are repeated; the copies must not drift apart."""
    defs = {name: schema(name).get("$defs", {}) for name in SCHEMA_NAMES}
    drifted = [(key, first, second) for first, second in combinations(SCHEMA_NAMES, 2)
               for key in sorted(set(defs[first]) & set(defs[second])) if defs[first][key] != defs[second][key]]
    assert drifted == []
    assert {"contract", "source", "embeddingIdentity", "profile"} <= defs["aggregate"].keys() & defs["corpus-fixture"]
    assert "searchConfig" in defs["aggregate"].keys() & defs["freeze"]


# --- genuine artifacts -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SideRun:
    """A fixture built another way (another backend or profile), its store and a hybrid calibration run."""

    fixture: Json
    manifest: Json
    mapping: Json
    rows: list[Row]
    aggregate: Json


def load(path: Path) -> Json:
    value: Json = json.loads(path.read_text(encoding="utf-8"))
    return value


def lines(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def side_run(root: Path, embedder: Embedder, profile: TextProfile | None = None) -> SideRun:
    contract = tiny_contract()
    report = build_fixture(contract, out=root / "fixture" / "tiny.json", work_dir=root / "work", embedder=embedder,
                           archive=tiny_archive(root / "tiny.zip"), progress=False, profile=profile)
    [run] = run_split(Evaluation(corpus=report.fixture, store_dir=root / "store", output_dir=root / "out",
                                split="calibration", modes=("hybrid",), argv=("pytest",)), contract)
    return SideRun(load(report.fixture), load(root / "store" / "store.json"), load(root / "store" / "mapping.json"),
                   lines(run.rows_path), run.aggregate)


@pytest.fixture(scope="module")
def ollama_run(tmp_path_factory: pytest.TempPathFactory) -> SideRun:
    # A context shorter than the longest tiny prompt, so that one prompt goes through the shortened retry.
    with FakeOllama(context_chars=600) as server:
        return side_run(tmp_path_factory.mktemp("closed-ollama"), OllamaEmbedder(host=server.url))


@pytest.fixture(scope="module")
def parity_run(tmp_path_factory: pytest.TempPathFactory, local_embedder: LocalEmbedder) -> SideRun:
    return side_run(tmp_path_factory.mktemp("closed-parity"), local_embedder,
                    text_profile("mteb-parity", tiny_contract()))


@dataclass(frozen=True)
class FailedRun:
    rows: list[Row]
    aggregate: Json


@pytest.fixture(scope="module")
def failed_runs(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> dict[str, FailedRun]:
    """fts_only and hybrid calibration runs, over a copy of the clean store, in which the first query fails."""
    root = tmp_path_factory.mktemp("closed-failed")
    contract, config = tiny_contract(), SearchConfig()
    fixture = load_fixture(clean_run.fixture_path)
    shutil.copytree(clean_run.store_dir, root / "store")
    store = open_store(root / "store", fixture, contract.namespace, config.lexical)
    queries = {query["query_id"]: query["text"] for query in fixture.data["queries"]}
    doomed = queries[select(list(queries), "calibration", contract.calibration_count)[0]]

    class Failing(BuiltinSystem):
        def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
            if text == doomed:
                raise RuntimeError("the backend fell over")
            return super().search(mode, text, vector, top_k)

    runs = {}
    for mode in ("fts_only", "hybrid"):
        run = run_mode(mode=mode, split="calibration", fixture=fixture, contract=contract,
                       system=Failing(store, config), top_k=config.top_k, output_dir=root / "out", replace=False,
                       argv=["pytest"])
        runs[mode] = FailedRun(lines(run.rows_path), run.aggregate)
    return runs


def assert_valid(instance: Any, name: str) -> None:
    assert violation(instance, name) is None
    validate(instance, name)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("mode", MODES)
def test_clean_rows_and_aggregates_validate(clean_run: CleanRun, mode: str, split: str) -> None:
    for row in lines(clean_run.rows_path(mode, split)):
        assert_valid(row, "query-row")
    assert_valid(load(clean_run.aggregate_path(mode, split)), "aggregate")


def test_clean_fixture_store_and_freeze_validate(clean_run: CleanRun) -> None:
    assert_valid(load(clean_run.fixture_path), "corpus-fixture")
    assert_valid(load(clean_run.store_dir / "store.json"), "store-manifest")
    assert_valid(load(clean_run.store_dir / "mapping.json"), "store-mapping")
    assert_valid(load(clean_run.freeze_path), "freeze")


@pytest.mark.parametrize("mode", ["fts_only", "hybrid"])
def test_failed_query_rows_validate(failed_runs: dict[str, FailedRun], mode: str) -> None:
    run = failed_runs[mode]
    failed = [row for row in run.rows if row["error"] is not None]
    assert len(failed) == 1 and "lanes" not in failed[0]["search_receipt"]
    for row in run.rows:
        assert_valid(row, "query-row")
    assert_valid(run.aggregate, "aggregate")


@pytest.mark.parametrize("which", ["ollama", "parity"])
def test_other_backends_and_profiles_validate(which: str, request: pytest.FixtureRequest) -> None:
    run: SideRun = request.getfixturevalue(f"{which}_run")
    assert_valid(run.fixture, "corpus-fixture")
    assert_valid(run.manifest, "store-manifest")
    assert_valid(run.mapping, "store-mapping")
    for row in run.rows:
        assert_valid(row, "query-row")
    assert_valid(run.aggregate, "aggregate")
    embedding = run.fixture["embedding"]
    if which == "ollama":
        assert embedding["backend"] == "ollama" and embedding["retried_prompts"]
    else:
        assert run.aggregate["receipt"]["profile"]["name"] == "mteb-parity"


def test_the_self_tests_hand_made_artifacts_validate(tmp_path: Path) -> None:
    aggregate = generate(tmp_path / "self-test")
    root = aggregate.parent
    assert_valid(load(aggregate), "aggregate")
    for row in lines(root / load(aggregate)["per_query_path"]):
        assert_valid(row, "query-row")
    assert_valid(load(root / "f.json"), "corpus-fixture")
    assert_valid(load(root / "store" / "store.json"), "store-manifest")
    assert_valid(load(root / "store" / "mapping.json"), "store-mapping")


# --- unknown fields at every depth -----------------------------------------------------------------------------

JsonPath = tuple[str | int, ...]
Documents = dict[str, tuple[str, Json]]  # kind -> (schema name, a genuine document of that kind)
MEMBER = "tiny/corpus.jsonl"


@pytest.fixture
def documents(clean_run: CleanRun, failed_runs: dict[str, FailedRun], ollama_run: SideRun) -> Documents:
    failed = next(row for row in failed_runs["hybrid"].rows if row["error"] is not None)
    return {
        "aggregate": ("aggregate", load(clean_run.aggregate_path("hybrid", "heldout"))),
        "row": ("query-row", lines(clean_run.rows_path("hybrid", "calibration"))[0]),
        "failed-row": ("query-row", failed),
        "freeze": ("freeze", load(clean_run.freeze_path)),
        "manifest": ("store-manifest", load(clean_run.store_dir / "store.json")),
        "mapping": ("store-mapping", load(clean_run.store_dir / "mapping.json")),
        "fixture": ("corpus-fixture", load(clean_run.fixture_path)),
        "ollama-fixture": ("corpus-fixture", ollama_run.fixture),
    }


INJECTIONS: list[tuple[str, JsonPath]] = [
    ("aggregate", ()),
    ("aggregate", ("metrics",)),
    ("aggregate", ("metrics", "latency_ms")),
    ("aggregate", ("metrics", "repeated_top1")),
    ("aggregate", ("receipt",)),
    ("aggregate", ("receipt", "run")),
    ("aggregate", ("receipt", "executable")),
    ("aggregate", ("receipt", "source")),
    ("aggregate", ("receipt", "source", "harness")),
    ("aggregate", ("receipt", "source", "git")),
    ("aggregate", ("receipt", "corpus")),
    ("aggregate", ("receipt", "corpus", "contract")),
    ("aggregate", ("receipt", "corpus", "source")),
    ("aggregate", ("receipt", "corpus", "source", "members", MEMBER)),
    ("aggregate", ("receipt", "corpus", "payload_hashes")),
    ("aggregate", ("receipt", "corpus", "payload_hashes", "definitions")),
    ("aggregate", ("receipt", "corpus", "counts")),
    ("aggregate", ("receipt", "embedding")),
    ("aggregate", ("receipt", "embedding", "identity")),
    ("aggregate", ("receipt", "embedding", "truncation_policy")),
    ("aggregate", ("receipt", "embedding", "semantic_text")),
    ("aggregate", ("receipt", "embedding", "profile")),
    ("aggregate", ("receipt", "store")),
    ("aggregate", ("receipt", "retrieval")),
    ("aggregate", ("receipt", "retrieval", "config")),
    ("aggregate", ("receipt", "retrieval", "config", "lexical")),
    ("aggregate", ("receipt", "retrieval", "backend")),
    ("aggregate", ("receipt", "retrieval", "lexical")),
    ("aggregate", ("receipt", "retrieval", "lexical", "stemmer")),
    ("aggregate", ("receipt", "split")),
    ("aggregate", ("receipt", "capabilities")),
    ("aggregate", ("receipt", "capabilities", "matryoshka")),
    ("aggregate", ("receipt", "machine")),
    ("aggregate", ("receipt", "claim_boundary")),
    ("aggregate", ("receipt", "profile")),
    ("aggregate", ("receipt", "measures")),
    ("aggregate", ("receipt", "freeze")),
    ("row", ()),
    ("row", ("metrics",)),
    ("row", ("results", 0)),
    ("row", ("results", 0, "lanes")),
    ("row", ("results", 0, "lanes", "lexical")),
    ("row", ("results", 0, "lanes", "dense")),
    ("row", ("results", 0, "lanes", "fusion")),
    ("row", ("search_receipt",)),
    ("row", ("search_receipt", "lanes")),
    ("row", ("search_receipt", "lanes", "lexical")),
    ("row", ("search_receipt", "lanes", "dense")),
    ("row", ("search_receipt", "lanes", "fusion")),
    ("failed-row", ()),
    ("failed-row", ("search_receipt",)),
    ("freeze", ()),
    ("freeze", ("source",)),
    ("freeze", ("source", "git")),
    ("freeze", ("corpus",)),
    ("freeze", ("embedding",)),
    ("freeze", ("store",)),
    ("freeze", ("search_config",)),
    ("freeze", ("search_config", "lexical")),
    ("freeze", ("split",)),
    ("freeze", ("host",)),
    ("manifest", ()),
    ("manifest", ("binding",)),
    ("manifest", ("binding", "lexical")),
    ("manifest", ("parts",)),
    ("manifest", ("parts", "database")),
    ("manifest", ("parts", "dense")),
    ("mapping", ()),
    ("fixture", ()),
    ("fixture", ("contract",)),
    ("fixture", ("profile",)),
    ("fixture", ("source",)),
    ("fixture", ("source", "members", MEMBER)),
    ("fixture", ("payload_hashes",)),
    ("fixture", ("payload_hashes", "definitions")),
    ("fixture", ("semantic_text",)),
    ("fixture", ("embedding",)),
    ("fixture", ("embedding", "identity")),
    ("fixture", ("embedding", "truncation_policy")),
    ("fixture", ("vectors",)),
    ("fixture", ("counts",)),
    ("fixture", ("documents", 0)),
    ("fixture", ("queries", 0)),
    ("ollama-fixture", ("embedding", "identity")),
    ("ollama-fixture", ("embedding", "identity", "request")),
    ("ollama-fixture", ("embedding", "retried_prompts", 0)),
]


def at(document: Any, path: JsonPath) -> Any:
    for part in path:
        document = document[part]
    return document


def where(path: JsonPath) -> str:
    return "/".join(map(str, path)) or "(top level)"


@pytest.mark.parametrize(("kind", "path"), INJECTIONS, ids=[f"{k}:{where(p)}" for k, p in INJECTIONS])
def test_an_unknown_field_is_refused_where_it_is(documents: Documents, kind: str, path: JsonPath) -> None:
    name, document = documents[kind]
    document = copy.deepcopy(document)
    at(document, path)[UNKNOWN] = 1
    expected = f"at {where(path)}: Additional properties are not allowed ('{UNKNOWN}' was unexpected)"
    assert violation(document, name) == expected
    with pytest.raises(SchemaViolation) as refused:
        validate(document, name)
    assert str(refused.value) == f"{name} schema: {expected}"


def test_each_embedding_backend_refuses_the_others_identity_fields(documents: Documents) -> None:
    _, local = documents["fixture"]
    _, ollama = documents["ollama-fixture"]
    mixed = copy.deepcopy(ollama)
    mixed["embedding"]["identity"]["weights_sha256"] = local["embedding"]["identity"]["weights_sha256"]
    assert violation(mixed, "corpus-fixture") == ("at embedding/identity: Additional properties are not allowed "
                                                  "('weights_sha256' was unexpected)")
    mixed = copy.deepcopy(local)
    mixed["embedding"]["identity"]["digest"] = ollama["embedding"]["identity"]["digest"]
    assert violation(mixed, "corpus-fixture") == ("at embedding/identity: Additional properties are not allowed "
                                                  "('digest' was unexpected)")
    mixed = copy.deepcopy(local)
    mixed["embedding"].update(backend="ollama", endpoint=ollama["embedding"]["endpoint"],
                              prompts_truncated_by_model=None)  # but the identity is still the local model's
    assert violation(mixed, "corpus-fixture") == "at embedding/identity/backend: 'ollama' was expected"


# --- data-keyed maps -------------------------------------------------------------------------------------------

Mutate = Callable[[Json], object]


def _set(path: JsonPath, key: str, value: Any) -> Mutate:
    return lambda document: at(document, path).__setitem__(key, value)


def _member(name: str) -> Mutate:
    """A well-formed member record under another name."""
    return lambda fixture: fixture["source"]["members"].__setitem__(name, fixture["source"]["members"][MEMBER])


DATA_MAPS: list[tuple[str, str, Mutate, str]] = [
    ("row", "qrels-grade-string", _set(("qrels",), "d01", "1"), "at qrels/d01: '1' is not of type 'integer'"),
    ("row", "qrels-empty-doc-id", _set(("qrels",), "", 1), "at qrels: key '' is not allowed"),
    ("fixture", "qrels-grade-string", _set(("queries", 0, "qrels"), "d01", "1"),
     "at queries/0/qrels/d01: '1' is not of type 'integer'"),
    ("fixture", "qrels-empty-doc-id", _set(("queries", 0, "qrels"), "", 1), "at queries/0/qrels: key '' is not"),
    ("fixture", "member-parent-directory", _member("tiny/../corpus.jsonl"),
     "at source/members: key 'tiny/../corpus.jsonl' is not allowed"),
    ("fixture", "member-absolute", _member("/etc/passwd"),
     "at source/members: key '/etc/passwd' is not allowed"),
    ("fixture", "member-backslash", _member("tiny\\corpus.jsonl"),
     "at source/members: key 'tiny\\\\corpus.jsonl' is not allowed"),
    ("fixture", "member-record-incomplete", _set(("source", "members"), "tiny/extra.jsonl", {"bytes": 1}),
     "at source/members/tiny/extra.jsonl: 'sha256' is a required property"),
    ("fixture", "library-version-number", _set(("embedding", "identity", "libraries"), "torch", 2),
     "at embedding/identity/libraries/torch: 2 is not of type 'string', 'null'"),
    ("fixture", "library-name", _set(("embedding", "identity", "libraries"), "torch 2", "2.0"),
     "at embedding/identity/libraries: key 'torch 2' is not allowed"),
    ("ollama-fixture", "details-key", _set(("embedding", "identity", "details"), "Format", "gguf"),
     "at embedding/identity/details: key 'Format' is not allowed"),
    ("ollama-fixture", "details-value", _set(("embedding", "identity", "details"), "format", {"name": "gguf"}),
     "at embedding/identity/details/format:"),
    ("mapping", "empty-doc-id", _set(("doc_to_fact",), "", 3), "at doc_to_fact: key '' is not allowed"),
    ("mapping", "fact-id-zero", _set(("doc_to_fact",), "d01", 0), "at doc_to_fact/d01: 0 is less than the minimum"),
    ("mapping", "fact-id-string", _set(("doc_to_fact",), "d01", "1"), "at doc_to_fact/d01: '1' is not of type"),
    ("aggregate", "dependency-version-number", _set(("receipt", "dependencies"), "numpy", 2),
     "at receipt/dependencies/numpy: 2 is not of type 'string', 'null'"),
    ("aggregate", "dependency-version-list", _set(("receipt", "dependencies"), "numpy", ["2.0"]),
     "at receipt/dependencies/numpy: ['2.0'] is not of type 'string', 'null'"),
    ("aggregate", "dependency-name", _set(("receipt", "dependencies"), "-numpy", "2.0"),
     "at receipt/dependencies: key '-numpy' is not allowed"),
    ("aggregate", "result-count-key", _set(("metrics", "result_count_distribution"), "07", 1),
     "at metrics/result_count_distribution: key '07' is not allowed"),
    ("aggregate", "result-count-zero-rows", _set(("metrics", "result_count_distribution"), "7", 0),
     "at metrics/result_count_distribution/7: 0 is less than the minimum of 1"),
    ("aggregate", "capability-unknown", _set(("receipt", "capabilities"), "reranking", {}),
     "at receipt/capabilities: Additional properties are not allowed ('reranking' was unexpected)"),
]


@pytest.mark.parametrize(("kind", "mutate", "expected"), [(k, m, e) for k, _, m, e in DATA_MAPS],
                         ids=[f"{k}:{i}" for k, i, _, _ in DATA_MAPS])
def test_a_data_map_refuses_a_bad_key_or_value(documents: Documents, kind: str, mutate: Mutate, expected: str) -> None:
    name, document = documents[kind]
    document = copy.deepcopy(document)
    mutate(document)
    found = violation(document, name)
    assert found is not None and found.startswith(expected), found
    with pytest.raises(SchemaViolation, match="^" + name):
        validate(document, name)


def test_a_data_map_accepts_what_the_producer_writes(documents: Documents) -> None:
    _, aggregate = documents["aggregate"]
    aggregate = copy.deepcopy(aggregate)
    aggregate["receipt"]["dependencies"]["pytest-benchmark"] = None  # a dependency that is not installed
    aggregate["receipt"]["corpus"]["source"]["members"]["tiny/qrels/train.tsv"] = {
        "bytes": None, "sha256": None, "pinned_sha256": None, "matches_pin": False}  # pinned but absent
    assert violation(aggregate, "aggregate") is None


# --- what the mode and the outcome fix -------------------------------------------------------------------------

SHAPES: list[tuple[str, str, Mutate, str]] = [
    ("row", "hybrid-without-fusion", lambda row: row["results"][0]["lanes"].pop("fusion"),
     "at results/0/lanes: 'fusion' is a required property"),
    ("row", "lexical-lane-in-vector-only", lambda row: row.update(mode="vector_only"),
     "at search_receipt/lanes: key 'lexical' is not allowed"),
    ("row", "failed-receipt-with-lanes", lambda row: row["search_receipt"].update(error="RuntimeError: x"),
     "at search_receipt: Additional properties are not allowed"),
    ("failed-row", "failed-receipt-with-results", lambda row: row["search_receipt"].update(result_count=1),
     "at search_receipt/result_count: 0 was expected"),
    ("aggregate", "dense-evidence-in-fts-only", lambda aggregate: aggregate.update(mode="fts_only"),
     "at receipt/retrieval/backend:"),
    ("aggregate", "git-available-without-state",
     lambda aggregate: aggregate["receipt"]["source"].update(git={"available": True}),
     "at receipt/source/git: 'commit' is a required property"),
    ("aggregate", "git-unavailable-with-state",
     lambda aggregate: aggregate["receipt"]["source"].update(git={"available": False, "reason": "x", "dirty": True}),
     "at receipt/source/git: Additional properties are not allowed ('dirty' was unexpected)"),
    ("freeze", "git-unavailable-with-commit",
     lambda record: record["source"]["git"].update(available=False, commit="0" * 40, dirty=None, diff_sha256=None,
                                                   status_sha256=None),
     "at source/git/commit: '0000000000000000000000000000000000000000' is not of type 'null'"),
]


@pytest.mark.parametrize(("kind", "mutate", "expected"), [(k, m, e) for k, _, m, e in SHAPES],
                         ids=[f"{k}:{i}" for k, i, _, _ in SHAPES])
def test_the_mode_and_outcome_fix_the_shape(documents: Documents, kind: str, mutate: Mutate, expected: str) -> None:
    name, document = documents[kind]
    document = copy.deepcopy(document)
    mutate(document)
    found = violation(document, name)
    assert found is not None and found.startswith(expected), found


# --- two implementations ---------------------------------------------------------------------------------------

def test_the_harness_decides_with_jsonschema_rs_and_says_it_when_the_libraries_disagree(documents: Documents) -> None:
    """The harness's check is jsonschema-rs's (the validator's is Python jsonschema's): where the two disagree the
    stricter one holds, and the refusal is worded by the library that refused. Python's `re.search` lets a `$`
    match before a final line break; jsonschema-rs's regular expressions do not. A NaN is no JSON value."""
    name, row = documents["row"]
    trailing = copy.deepcopy(row)
    trailing["query_sha256"] += "\n"
    assert violation(trailing, name) is None  # Python jsonschema accepts it
    assert not conforms(trailing, name)
    with pytest.raises(SchemaViolation, match=r"^query-row schema: at query_sha256: .* does not match "):
        validate(trailing, name)
    not_json = copy.deepcopy(row)
    not_json["latency_ms"] = float("nan")
    with pytest.raises(SchemaViolation, match=r"^query-row schema: at latency_ms: "):
        validate(not_json, name)
    assert conforms(row, name) and violation(row, name) is None

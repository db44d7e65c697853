"""The modes are declared once (harness/schemas/modes.json): the harness, the validator and every schema agree."""

import json
import re
from pathlib import Path

import pytest

from harness.modes import MODE_TABLE, MODES, SEARCHED, TABLE_PATH, UnknownModeError, mode
from harness.validator.core.modes import FUSION, LANES

SCHEMAS = Path(__file__).resolve().parent.parent / "harness" / "schemas"


def _schema(name: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    return loaded


def _mode_enums(node: object) -> list[list[str]]:
    """Every enum in a schema whose values are all mode-like names."""
    found: list[list[str]] = []
    if isinstance(node, dict):
        enum = node.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(v, str) and v in (*MODES, "all") for v in enum) \
                and "fts_only" in enum:
            found.append(enum)
        for value in node.values():
            found += _mode_enums(value)
    elif isinstance(node, list):
        for value in node:
            found += _mode_enums(value)
    return found


def test_the_table_declares_three_searched_modes_with_their_lanes_and_the_run_files() -> None:
    assert TABLE_PATH.parent == SCHEMAS
    assert [(m.name, m.lanes, m.fusion) for m in MODE_TABLE] == [
        ("fts_only", ("lexical",), None), ("vector_only", ("dense",), None),
        ("hybrid", ("lexical", "dense"), "declared"), ("run_file", (), None)]
    assert SEARCHED == ("fts_only", "vector_only", "hybrid")  # what a system may offer; run_file is read, not searched


def test_the_validator_reads_the_same_table() -> None:
    assert {m.name: m.lanes for m in MODE_TABLE} == LANES
    assert {m.name: m.fusion for m in MODE_TABLE} == FUSION


@pytest.mark.parametrize("name", ["query-row", "aggregate", "freeze"])
def test_every_schema_enumerates_the_declared_modes(name: str) -> None:
    enums = _mode_enums(_schema(name))
    assert enums and all(tuple(enum) == MODES for enum in enums), enums


def test_the_per_query_file_name_pattern_names_the_declared_modes() -> None:
    text = (SCHEMAS / "aggregate.schema.json").read_text(encoding="utf-8")
    [alternatives] = re.findall(r"\]\*-\(([^)]*)\)", text)  # DATASET-(modes)-(splits).jsonl
    assert tuple(alternatives.split("|")) == MODES


@pytest.mark.parametrize("name", ["query-row", "aggregate"])
def test_each_declared_mode_has_its_branch_in_the_schema(name: str) -> None:
    text = json.dumps(_schema(name))
    for declared in MODES:
        assert json.dumps({"const": declared}) in text, declared


def test_an_undeclared_or_unoffered_mode_is_refused() -> None:
    assert mode("hybrid").fusion == "declared"
    with pytest.raises(UnknownModeError, match="unknown mode 'bm25'"):
        mode("bm25")
    with pytest.raises(UnknownModeError, match="choose one of fts_only"):
        mode("hybrid", offered=("fts_only",))

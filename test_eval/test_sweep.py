"""`sweep --grid GRID` on the tiny corpus as a user types it: every configuration of the grid evaluated on calibration
with the run's own code and counted in the store's run ledger; each refusal of a grid and of a configuration file
naming the file, the parameter and the fix; a system of its own refused; a sweep after a held-out run refused."""

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from fixtures.cli import run_tiny_cli
from harness.evaluation.history.ledger import LEDGER
from harness.evaluation.measures.metrics import METRIC_KEYS
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical
from harness.systems.builtin.config.grid import MAX_CONFIGURATIONS, read_grid
from harness.systems.builtin.config.overrides import ConfigFileError, load_config
from harness.systems.builtin.config.search_config import SearchConfig

GRID = {"parameters": {"rrf_k": [20, 40, 60], "lexical.k1": [0.9, 1.2, 1.5, 1.8]}}


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def history(store: Path) -> list[dict[str, Any]]:
    with closing(sqlite3.connect(store / LEDGER)) as connection:
        return [json.loads(text) for (text,) in connection.execute("SELECT event FROM history ORDER BY position")]


def where(corpus: CorpusFixture, tmp_path: Path) -> list[str]:
    return ["--corpus", str(corpus.path), "--store-dir", str(tmp_path / "store"), "--output-dir",
            str(tmp_path / "out")]


def test_the_grids_configurations_in_the_stated_order(tmp_path: Path) -> None:
    grid = read_grid(write_json(tmp_path / "grid.json", GRID))
    configurations = grid.configurations()
    assert len(configurations) == 12
    # lexical.k1 first (varying slowest) whatever order the file lists the parameters in; values as listed
    assert configurations[:4] == [{"lexical.k1": 0.9, "rrf_k": k} for k in (20, 40, 60)] + [
        {"lexical.k1": 1.2, "rrf_k": 20}]
    assert grid.search_config(configurations[0]).lexical.k1 == 0.9
    assert grid.search_config(configurations[0]).rrf_k == 20
    # an integer k1 is the same configuration as its float: one digest
    same = read_grid(write_json(tmp_path / "int.json", {"parameters": {"lexical.k1": [1]}}))
    assert same.search_config(same.configurations()[0]).sha256() == read_grid(write_json(
        tmp_path / "float.json", {"parameters": {"lexical.k1": [1.0]}})).search_config({"lexical.k1": 1.0}).sha256()


@pytest.mark.parametrize(("grid", "named"), [
    ({"parameters": {"top_k": [5]}}, "names 'top_k', which is not a parameter"),
    ({"parameters": {"sparse_weight": [0.5]}}, "frozen-baseline switches"),
    ({"parameters": {"lexical": {"k1": [1.2]}}}, 'name it "lexical.k1"'),
    ({"parameters": {"rrf_k": []}}, "gives rrf_k an empty list"),
    ({"parameters": {"rrf_k": [40, 20, 40]}}, "lists the value 40 of rrf_k twice"),
    ({"parameters": {"lexical.k1": [1.2, 1.20]}}, "lists the value 1.2 of lexical.k1 twice"),
    ({"parameters": {"lexical.k1": [1, 1.0]}}, "lists the value 1.0 of lexical.k1 twice"),
    ({"parameters": {"rrf_k": [20.5]}}, "gives rrf_k the value 20.5, a JSON number with a fraction: rrf_k takes an "
                                        "integer >= 1"),
    ({"parameters": {"rrf_k": ["40"]}}, 'gives rrf_k the value "40", a JSON string'),
    ({"parameters": {"lexical.b": [True]}}, "gives lexical.b the value true, a JSON boolean"),
    ({"parameters": {"lexical.b": [1.5]}}, "lexical.b takes a number from 0 to 1"),
    ({"parameters": {"lexical.k1": [0]}}, "lexical.k1 takes a number > 0"),
    ({"parameters": {"hybrid_candidate_depth": [5]}}, "hybrid_candidate_depth takes an integer >= top_k"),
    ({"parameters": {"rrf_k": 40}}, "gives rrf_k 40, not a list of values"),
    ({"parameters": {}}, "declares no parameter"),
    ({"rrf_k": [20]}, 'holds no "parameters" object'),
    ({"parameters": {"rrf_k": [20]}, "note": "x"}, "has the key 'note'"),
    ({"parameters": {"rrf_k": list(range(1, 11)), "lexical.k1": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0,
                                                                  5.5]}},
     f"4 (lexical.k1) x 10 (rrf_k) = 110 configurations, more than the {MAX_CONFIGURATIONS}"),
])
def test_a_grid_is_refused_naming_the_file_the_parameter_and_the_fix(grid: dict[str, Any], named: str,
                                                                     tmp_path: Path) -> None:
    path = write_json(tmp_path / "grid.json", grid)
    with pytest.raises(ConfigFileError) as refused:
        read_grid(path)
    message = str(refused.value)
    expected = named.replace("4 (lexical.k1)", "11 (lexical.k1)")
    assert expected in message and str(path) in message, message
    assert "write" in message or "list" in message or "leave" in message or "name it" in message, message


def test_a_grid_that_is_not_json_is_named(tmp_path: Path) -> None:
    path = tmp_path / "grid.json"
    path.write_text('{"parameters": {"rrf_k": [20], "rrf_k": [40]}}', encoding="utf-8")
    with pytest.raises(ConfigFileError, match="the key 'rrf_k' appears twice"):
        read_grid(path)
    path.write_text('{"parameters": {"lexical.k1": [NaN]}}', encoding="utf-8")
    with pytest.raises(ConfigFileError, match="NaN is not a number JSON allows"):
        read_grid(path)


@pytest.mark.parametrize(("config", "named"), [
    ({"rrf_k": 40, "lexical": {"k1": 1.2}}, None),
    ({"top_k": 5}, "names 'top_k', which is not a parameter of the built-in system that can be set"),
    ({"lexical": {"stemmer": "none"}}, "names 'lexical.stemmer'"),
    ({"lexical": 1.2}, "gives lexical the JSON number with a fraction 1.2, not an object"),
    ({"rrf_k": "40"}, 'gives rrf_k the value "40", a JSON string'),
    ({"hybrid_candidate_depth": 3}, "hybrid_candidate_depth takes an integer >= top_k"),
    ([40], "holds a JSON array, not an object"),
])
def test_each_bad_override_of_a_configuration_file_is_named(config: Any, named: str | None, tmp_path: Path) -> None:
    path = write_json(tmp_path / "config.json", config)
    if named is None:
        loaded = load_config(path)
        assert (loaded.rrf_k, loaded.lexical.k1, loaded.lexical.b) == (40, 1.2, 0.75)
        assert loaded.sha256() != SearchConfig().sha256()
        return
    with pytest.raises(ConfigFileError) as refused:
        load_config(path)
    assert named in str(refused.value) and str(path) in str(refused.value), str(refused.value)


def test_a_sweep_evaluates_and_counts_every_configuration(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    grid = write_json(tmp_path / "grid.json", GRID)
    swept = run_tiny_cli(["sweep", "--grid", str(grid), *where(tiny_corpus, tmp_path)], capsys)
    assert swept.code == 0, swept.err
    events = [e for e in history(tmp_path / "store") if e["event"] == "sweep-configuration"]
    assert len(events) == 36 and {e["split"] for e in events} == {"calibration"}
    assert len({e["configuration_sha256"] for e in events}) == 12
    document = json.loads((tmp_path / "out" / "tiny-test-sweep-calibration.json").read_text())
    assert [c["index"] for c in document["configurations"]] == list(range(1, 13))
    first = document["configurations"][0]
    assert first["parameters"] == {"lexical.k1": 0.9, "rrf_k": 20}
    assert set(first["modes"]["hybrid"]["scores"]) == set(METRIC_KEYS)
    chosen = tmp_path / "out" / first["config_file"]
    assert json.loads(chosen.read_text()) == {"lexical": {"k1": 0.9}, "rrf_k": 20}
    assert first["configuration_sha256"] == load_config(chosen).sha256()
    # each event is the one the file places, and the scores it records are the file's
    position = first["modes"]["hybrid"]["ledger"]["position"]
    event = history(tmp_path / "store")[position - 1]
    assert event["scores"] == first["modes"]["hybrid"]["scores"] and event["mode"] == "hybrid"
    assert event["configuration"] == first["parameters"]
    # no store is kept: the store directory holds the ledger and its system's record until a run builds there
    assert not (tmp_path / "store" / "store.json").exists()
    assert "configurations by nDCG@10 in hybrid:" in swept.out
    assert "--split calibration --config" in swept.out and "tiny-test-sweep-configurations" in swept.out


def test_the_sweeps_scores_are_the_calibration_runs(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The sweep's means for a configuration are what `run --config` of that configuration measures, and its
    per-query digest is of the same rankings."""
    grid = write_json(tmp_path / "grid.json", {"parameters": {"rrf_k": [5, 30], "lexical.b": [0.3]}})
    assert run_tiny_cli(["sweep", "--grid", str(grid), *where(tiny_corpus, tmp_path)], capsys).code == 0
    document = json.loads((tmp_path / "out" / "tiny-test-sweep-calibration.json").read_text())
    second = document["configurations"][1]
    ran = run_tiny_cli(["run", *where(tiny_corpus, tmp_path), "--split", "calibration", "--no-validate",
                        "--config", str(tmp_path / "out" / second["config_file"])], capsys)
    assert ran.code == 0, ran.err
    for mode in ("fts_only", "vector_only", "hybrid"):
        aggregate = json.loads((tmp_path / "out" / f"tiny-test-{mode}-calibration.aggregate.json").read_text())
        assert aggregate["receipt"]["system"]["configuration_sha256"] == second["configuration_sha256"]
        assert {k: aggregate["metrics"][k] for k in METRIC_KEYS} == second["modes"][mode]["scores"]
        rows = [json.loads(line) for line in
                (tmp_path / "out" / f"tiny-test-{mode}-calibration.jsonl").read_text().splitlines()]
        top = [{"query_id": r["query_id"], "ranked_doc_ids": r["ranked_doc_ids"],
                "metrics": {k: r["metrics"][k] for k in METRIC_KEYS}} for r in rows]  # the depth-100 ones aside
        assert sha256_canonical(top) == second["modes"][mode]["per_query_sha256"]
    started = [e for e in history(tmp_path / "store") if e["event"] == "run-started"]
    assert {e["configuration_sha256"] for e in started} == {second["configuration_sha256"]}


def test_a_system_of_its_own_is_refused_with_what_to_do_instead(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    grid = write_json(tmp_path / "grid.json", GRID)
    refused = run_tiny_cli(["sweep", "--grid", str(grid), *where(tiny_corpus, tmp_path), "--system",
                            "examples.numpy_dense:NumpyDense"], capsys)
    assert refused.code == 2
    assert "takes its configuration from its own code, which a sweep cannot set yet" in refused.err
    assert "--split calibration --system examples.numpy_dense:NumpyDense" in refused.err
    assert not (tmp_path / "store").exists()
    config = write_json(tmp_path / "config.json", {"rrf_k": 40})
    run = run_tiny_cli(["run", *where(tiny_corpus, tmp_path), "--split", "calibration", "--config", str(config),
                        "--system", "examples.numpy_dense:NumpyDense"], capsys)
    assert run.code == 2 and "--config sets the built-in system's parameters" in run.err


def test_a_grid_refusal_ends_before_any_work(tiny_corpus: CorpusFixture, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    grid = write_json(tmp_path / "grid.json", {"parameters": {"rrf_k": [20, 20]}})
    refused = run_tiny_cli(["sweep", "--grid", str(grid), *where(tiny_corpus, tmp_path)], capsys)
    assert refused.code == 2 and f"sweep grid {grid} lists the value 20 of rrf_k twice" in refused.err
    assert not (tmp_path / "store").exists() and not (tmp_path / "out").exists()


def test_a_store_built_with_other_lexical_parameters_is_refused(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tiny_cli(["run", *where(tiny_corpus, tmp_path), "--split", "calibration", "--no-validate",
                         "--mode", "fts_only"], capsys).code == 0
    grid = write_json(tmp_path / "grid.json", {"parameters": {"lexical.k1": [1.2, 1.5]}})
    refused = run_tiny_cli(["sweep", "--grid", str(grid), *where(tiny_corpus, tmp_path)], capsys)
    assert refused.code == 2 and "already holds a store built with lexical k1=1.5" in refused.err
    assert "Sweep into a store directory with no store yet" in refused.err
    # rrf_k alone needs no other index: allowed, and counted beside the calibration run
    grid = write_json(tmp_path / "grid.json", {"parameters": {"rrf_k": [30, 60]}})
    assert run_tiny_cli(["sweep", "--grid", str(grid), *where(tiny_corpus, tmp_path)], capsys).code == 0


def test_a_sweep_after_a_held_out_run_is_refused(tiny_corpus: CorpusFixture, tmp_path: Path, own_heldout_record: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    place = where(tiny_corpus, tmp_path)
    assert run_tiny_cli(["run", *place, "--split", "calibration", "--no-validate"], capsys).code == 0
    assert run_tiny_cli(["freeze", *place, "--allow-dirty"], capsys).code == 0
    assert run_tiny_cli(["run", *place, "--split", "heldout", "--no-validate", "--mode", "fts_only"], capsys).code == 0
    before = history(tmp_path / "store")
    grid = write_json(tmp_path / "grid.json", {"parameters": {"rrf_k": [30, 60]}})
    refused = run_tiny_cli(["sweep", "--grid", str(grid), *place], capsys)
    assert refused.code == 3, refused.err
    assert ("the sweep is refused: held-out run tiny-test/fts_only/heldout/run-1 was started on this store"
            in refused.err)
    assert "calibrate and freeze in a new store directory" in refused.err
    assert history(tmp_path / "store") == before


def test_a_freeze_of_another_configuration_than_the_calibrated_one_is_refused(
        tiny_corpus: CorpusFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sweep evaluated both configurations, a calibration run made the first's receipts: freezing the second (same
    store, another rrf_k) would pair its held-out results with the first's calibration, so it is refused, naming both
    digests and the fix; the first freezes."""
    place = where(tiny_corpus, tmp_path)
    grid = write_json(tmp_path / "grid.json", {"parameters": {"rrf_k": [20, 40]}})
    assert run_tiny_cli(["sweep", "--grid", str(grid), *place], capsys).code == 0
    first, second = (tmp_path / "out" / "tiny-test-sweep-configurations" / f"configuration-0{i}.json" for i in (1, 2))
    assert run_tiny_cli(["run", *place, "--split", "calibration", "--no-validate", "--config", str(first)],
                        capsys).code == 0
    refused = run_tiny_cli(["freeze", *place, "--allow-dirty", "--config", str(second)], capsys)
    assert refused.code == 3, refused.err
    made, frozen = load_config(first).sha256(), load_config(second).sha256()
    for mode in ("fts_only", "vector_only", "hybrid"):
        assert (f"{mode}'s calibration receipt was made under the configuration {made}, and the one frozen is "
                f"{frozen}") in refused.err
    assert "the same --config as its calibration run" in refused.err
    assert not (tmp_path / "out" / "freeze.json").exists()
    assert run_tiny_cli(["freeze", *place, "--allow-dirty", "--config", str(first)], capsys).code == 0
    assert json.loads((tmp_path / "out" / "freeze.json").read_text())["search_config_sha256"] == made

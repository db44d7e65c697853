"""A measure chosen by name and compared, with a cutoff beyond top_k, reads the depth-100 ranking past the claim's top
10: on a collection deeper than 100 documents, the built-in system's modes compared on R@50 and nDCG@20, where some
query has a relevant document between ranks 11 and 50; the validator recomputes both from each row."""

import json
from pathlib import Path

import pytest

from fixtures.deep_collection import deep_fixture
from harness.cli.app import main
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.run_split import Evaluation, run_split
from harness.validator.pipeline import validate_comparison

CHOSEN = ("R@50", "nDCG@20")


def test_a_chosen_measure_beyond_top_k_compared_reads_the_depth_ranking(local_embedder: LocalEmbedder,
                                                                        tmp_path: Path) -> None:
    archive, contract, fixture = deep_fixture(tmp_path, local_embedder)
    out = tmp_path / "out"
    run_split(Evaluation(corpus=fixture.path, store_dir=tmp_path / "store", output_dir=out, split="calibration",
                         measures=CHOSEN), contract, fixture=fixture)
    rows = [json.loads(line) for line in (out / "deep-hybrid-calibration.jsonl").read_text("utf-8").splitlines()]
    beyond = [row for row in rows if any(row["qrels"].get(doc, 0) >= 1
                                         for doc in row["depth_ranking"]["doc_ids"][10:50])]
    assert beyond, "some query has a relevant document between ranks 11 and 50"
    assert main(["compare", "--output-dir", str(out), "--split", "calibration", "--no-validate",
                 *[f"--measure={name}" for name in CHOSEN]]) == 0
    path = out / "deep-comparison-calibration.json"
    document = json.loads(path.read_text("utf-8"))
    assert document["metrics"][-2:] == list(CHOSEN)
    hybrid = json.loads((out / "deep-hybrid-calibration.aggregate.json").read_text("utf-8"))
    assert document["modes"]["hybrid"]["R@50"]["mean"] == pytest.approx(hybrid["measures"]["means"]["R@50"],
                                                                        abs=1e-12)
    report = validate_comparison(path, archive=archive)
    assert {c.name for c in report.failed} <= {"comparison.inputs_eligible"}, [c.line() for c in report.failed]
    assert {"comparison.means", "comparison.statistics"} <= {c.name for c in report.checks if c.status == "pass"}

"""A measure chosen by name and compared reads the claim's ranking within top_k, never the depth-100 one: a system
whose depth-100 ranking begins otherwise than its claim (fixtures.plugins.DepthSwapped, as an approximate index may)
compared with the built-in system on P@1 and nDCG@3; the validator recomputes both from each row's claim."""

import json
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive
from harness.cli.app import main
from harness.corpus.contract import Contract
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.validator.pipeline import validate_comparison

CHOSEN = ("P@1", "nDCG@3")


def test_a_chosen_measure_compared_reads_the_claims_ranking(tiny_corpus: CorpusFixture, tiny: Contract,
                                                            tmp_path: Path) -> None:
    for name, spec in (("builtin", "builtin"), ("swapped", "fixtures.plugins:DepthSwapped")):
        run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / f"store-{name}", split="calibration",
                             output_dir=tmp_path / name, system=spec, measures=CHOSEN,
                             modes=("vector_only",)), tiny)
    rows = [json.loads(line) for line in
            (tmp_path / "swapped" / "tiny-test-vector_only-calibration.jsonl").read_text("utf-8").splitlines()]
    differing = [row for row in rows if row["ranked_doc_ids"][:1] != row["depth_ranking"]["doc_ids"][:1]
                 and row["qrels"].get(row["ranked_doc_ids"][0], 0) != row["qrels"].get(
                     row["depth_ranking"]["doc_ids"][0], 0)]
    assert differing, "for some query the claim's first document and the depth-100 ranking's are judged otherwise"
    out = tmp_path / "compared"
    assert main(["compare", "--output-dir", str(out), "--run", f"builtin={tmp_path / 'builtin'}", "--run",
                 f"swapped={tmp_path / 'swapped'}", "--split", "calibration", "--no-validate",
                 *[f"--measure={name}" for name in CHOSEN]]) == 0
    path = out / "tiny-test-systems-calibration.json"
    document = json.loads(path.read_text("utf-8"))
    assert document["metrics"][-2:] == list(CHOSEN)
    aggregate = json.loads((tmp_path / "swapped" / "tiny-test-vector_only-calibration.aggregate.json").read_text(
        "utf-8"))
    assert document["arms"]["swapped/vector_only"]["P@1"]["mean"] == pytest.approx(
        aggregate["measures"]["means"]["P@1"], abs=1e-12)
    report = validate_comparison(path, archive=tiny_archive(tmp_path / "tiny.zip"))
    assert {c.name for c in report.failed} <= {"systems.inputs_eligible"}, [c.line() for c in report.failed]
    assert "systems.statistics" in {c.name for c in report.checks if c.status == "pass"}

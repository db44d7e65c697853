"""Every parameter a sweep may set is one the harness implements and the validator replays: on a collection deeper
than the candidate depth (fixtures/deep_collection.py, 160 documents), a calibration run of a configuration that sets
all four away from their defaults passes every check the validator makes of it (the git state aside), and its
lexical and hybrid rankings are not the default configuration's (the dense lane's are: nothing swept touches it)."""

import json
from pathlib import Path

import pytest

from fixtures.deep_collection import deep_fixture
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.run_split import Evaluation, run_split
from harness.systems.builtin.config.overrides import configured
from harness.systems.builtin.config.search_config import SearchConfig
from harness.validator.core.report import FAIL
from harness.validator.pipeline import validate

from .support import GIT_CHECKS

pytestmark = pytest.mark.real_model

SWEPT = {"lexical.k1": 0.6, "lexical.b": 0.3, "rrf_k": 7, "hybrid_candidate_depth": 15}


def test_a_configuration_with_every_swept_parameter_changed_is_replayed(local_embedder: LocalEmbedder,
                                                                         tmp_path: Path) -> None:
    archive, contract, fixture = deep_fixture(tmp_path, local_embedder)
    rankings = {}
    for name, config in (("default", SearchConfig()), ("swept", configured(SWEPT))):
        runs = run_split(Evaluation(corpus=fixture.path, store_dir=tmp_path / f"store-{name}",
                                    output_dir=tmp_path / f"out-{name}", split="calibration", config=config),
                         contract, fixture=fixture)
        rankings[name] = {run.mode: [json.loads(line)["ranked_doc_ids"]
                                     for line in run.rows_path.read_bytes().splitlines()] for run in runs}
        if name == "swept":
            for run in runs:
                assert run.aggregate["receipt"]["retrieval"]["config"]["hybrid_candidate_depth"] == 15
                report = validate(run.aggregate_path, embeddings=False, archive=archive)
                failed = [c.line() for c in report.checks if c.status == FAIL and c.name not in GIT_CHECKS]
                assert not failed, (run.mode, failed)
    # the lexical parameters move fts_only, all four hybrid; nothing swept touches the dense lane
    assert rankings["default"]["fts_only"] != rankings["swept"]["fts_only"]
    assert rankings["default"]["hybrid"] != rankings["swept"]["hybrid"]
    assert rankings["default"]["vector_only"] == rankings["swept"]["vector_only"]

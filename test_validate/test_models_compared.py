"""Models compared (docs/comparing-systems.md, "What the inputs must share"): runs on two fixtures that hold the same
documents, queries, judgements and split and differ only in their embedding are one experiment. A hypothesis declared
at the freeze against the packaged model's run ("my model's vector_only > the packaged model's vector_only") is
confirmatory on held-out; the validator holds each run's fixture, as it read it, to the same data and each embedding
to its verification; fixtures of other data are refused, by the comparison, the freeze and the validator; the report,
CLAIMS.md and the bundle's reader show and check each arm's model."""

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import tiny_contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.comparison.inputs import ComparisonRefused
from harness.evaluation.comparison.run_specs import parse_run
from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems
from harness.evaluation.gates.baseline_content import BaselineDataRefused
from harness.evaluation.receipts.locations import FIXTURES, LOCATIONS_NAME
from harness.fixture.corpus_fixture import load_fixture
from harness.publish.bundle import make_bundle
from harness.publish.report.report import write_report
from harness.publish.text.markdown_text import inert
from harness.publish.verdicts import validator_judgement
from harness.validator.bundle_reader import BundleOptions, validate_bundle
from harness.validator.core.report import FAIL, NOT_VERIFIED, PASS
from harness.validator.options import ELIGIBLE
from harness.validator.pipeline import validate, validate_systems_comparison

from .models_runs import (
    CORPUS,
    QRELS,
    ModelsRuns,
    calibrated_and_frozen,
    mine_family,
    models_runs,
    other_data,
    own_model_fixture,
)
from .support import CleanRun, Json, check_named, describe, sha256_canonical, sha256_file
from .systems_comparison_builder import RunSpec, build, write

PACKAGED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MINE_MODEL = "all-minilm:latest"


@pytest.fixture(scope="module")
def runs(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelsRuns]:
    """Both evaluations, with the fake server named as the verifier's Ollama server for the module's tests."""
    with models_runs(clean_run.fixture_path, tmp_path_factory.mktemp("models")) as made, \
            pytest.MonkeyPatch.context() as patch:
        patch.setenv("OLLAMA_HOST", made.server.url)
        yield made


def _compare(out: Path, split: str, *runs: str) -> tuple[Path, Json]:
    request = SystemsRequest(output_dir=out, split=split, runs=[parse_run(run) for run in runs])
    path, document, _ = compare_systems(request, validator_judgement)
    return path, document


@pytest.fixture(scope="module")
def own_model_runs(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelsRuns]:
    """The same two evaluations, mine embedded by a sentence-transformers model of one's own."""
    with models_runs(clean_run.fixture_path, tmp_path_factory.mktemp("own-models"), own_model_fixture) as made:
        yield made


def test_a_pre_registered_comparison_with_a_sentence_transformers_model_of_ones_own_is_confirmatory_and_validated(
        own_model_runs: ModelsRuns, tmp_path: Path) -> None:
    path, document = _compare(tmp_path, "heldout", f"packaged={own_model_runs.packaged}",
                              f"mine={own_model_runs.mine}")
    assert [run["embedding"]["model"] for run in document["runs"]] == [PACKAGED_MODEL, "minilm-3"]
    [family] = document["hypotheses"]
    [member] = family["members"]
    assert (member["status"], member["pair"]) == (
        "confirmatory", {"a": "mine/vector_only", "b": "packaged/vector_only"}), member["reason"]
    assert set(document["inputs_validation"]["verdicts"].values()) == {"ELIGIBLE"}
    report = validate_systems_comparison(path)
    assert report.eligible, describe(report)
    mine_arm = validate(own_model_runs.mine / "tiny-test-vector_only-heldout.aggregate.json",
                        freeze=own_model_runs.mine / "freeze.json", full_embedding=True)
    assert check_named(mine_arm, "embeddings.model").status == PASS, describe(mine_arm)
    assert "every file as declared" in check_named(mine_arm, "embeddings.model").detail


def test_a_pre_registered_comparison_between_two_models_is_confirmatory_and_validated(runs: ModelsRuns,
                                                                                       tmp_path: Path) -> None:
    path, document = _compare(tmp_path, "heldout", f"packaged={runs.packaged}", f"mine={runs.mine}")
    packaged, mine = (load_fixture(p).data for p in (runs.packaged_fixture, runs.mine_fixture))
    assert [(run["fixture"]["sha256"], run["embedding"]["model"]) for run in document["runs"]] == [
        (sha256_file(runs.packaged_fixture), PACKAGED_MODEL), (sha256_file(runs.mine_fixture), MINE_MODEL)]
    assert [run["embedding"]["identity_sha256"] for run in document["runs"]] == [
        packaged["embedding"]["identity_sha256"], mine["embedding"]["identity_sha256"]]
    assert document["content"] == {key: packaged["payload_hashes"][key] for key in ("documents", "queries", "qrels")}
    assert packaged["payload_hashes"] == mine["payload_hashes"]
    assert document["fixtures"].startswith("the runs read 2 fixtures that hold the same documents, queries and "
                                           "judgements and differ in their embedding: packaged: " + PACKAGED_MODEL)
    [family] = document["hypotheses"]
    [member] = family["members"]
    assert (family["declared_by"], member["status"], member["pair"]) == (
        "mine", "confirmatory", {"a": "mine/vector_only", "b": "packaged/vector_only"}), member["reason"]
    assert member["result"]["test_ran"] == ("one-sided paired randomization test, H1: mine/vector_only > "
                                            "packaged/vector_only")
    confirmatory = [(c["a"], c["b"]) for c in document["comparisons"] if c["status"] == "confirmatory"]
    assert confirmatory == [("mine/vector_only", "packaged/vector_only")]
    assert set(document["inputs_validation"]["verdicts"].values()) == {"ELIGIBLE"}

    report = validate_systems_comparison(path)
    assert report.eligible, describe(report)
    assert check_named(report, "systems.data").status == PASS
    assert report.notes["compared_datasets"] == ["tiny-test"]
    mine_arm = validate(runs.mine / "tiny-test-vector_only-heldout.aggregate.json", freeze=runs.mine / "freeze.json")
    assert check_named(mine_arm, "embeddings.model").status == PASS, describe(mine_arm)
    assert mine_arm.notes["embedding_verification"]["server"] == runs.server.url


def test_an_unverified_embedding_leaves_the_comparison_not_verified(runs: ModelsRuns, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = _compare(tmp_path, "heldout", f"packaged={runs.packaged}", f"mine={runs.mine}")
    monkeypatch.delenv("OLLAMA_HOST")  # no verifier's server: mine's vectors cannot be re-embedded here
    report = validate_systems_comparison(path)
    check = check_named(report, "systems.inputs_eligible")
    assert check.status == NOT_VERIFIED and not report.failed and not report.eligible, describe(report)
    assert "mine/fts_only" in check.detail and "embeddings.model" in check.detail, check.detail
    assert "packaged/" not in check.detail


@pytest.mark.parametrize(("changed", "facet"), [(QRELS, "judgements (qrels) digest"), (CORPUS, "documents digest")])
def test_runs_on_fixtures_of_other_data_are_refused_naming_what_differs(
        runs: ModelsRuns, local_embedder: LocalEmbedder, tmp_path: Path, changed: str, facet: str) -> None:
    other = other_data(tmp_path, local_embedder, changed)
    ours, theirs = (json.loads(next(out.glob("*-fts_only-calibration.aggregate.json")).read_bytes())["receipt"]
                    ["corpus"]["payload_hashes"] for out in (runs.packaged, other))
    key = "qrels" if changed == QRELS else "documents"
    assert ours[key] != theirs[key]
    with pytest.raises(ComparisonRefused) as refused:
        _compare(tmp_path / "compared", "calibration", f"packaged={runs.packaged}", f"other={other}")
    message = str(refused.value)
    assert f"the {facet}: {ours[key]!r} against {theirs[key]!r}" in message, message
    assert "build each fixture from the same archive under the same contract" in message
    assert not (tmp_path / "compared").exists()


def test_the_validator_fails_a_comparison_whose_fixtures_hold_other_data(runs: ModelsRuns,
                                                                         local_embedder: LocalEmbedder,
                                                                         tmp_path: Path) -> None:
    """The file claims the packaged fixture's data for both runs (a forger's tool writes it, checking nothing); the
    other run's fixture, as the validator reads it, holds other judgements."""
    other = other_data(tmp_path, local_embedder, QRELS)
    document = build([RunSpec("packaged", runs.packaged, "fts_only"), RunSpec("other", other, "fts_only")],
                     "calibration", tmp_path)
    packaged = load_fixture(runs.packaged_fixture).data["payload_hashes"]
    assert document["content"]["qrels"] == packaged["qrels"]
    report = validate_systems_comparison(write(document, tmp_path))
    data, experiment = check_named(report, "systems.data"), check_named(report, "systems.experiment")
    assert (data.status, experiment.status) == (FAIL, FAIL), describe(report)
    recomputed = sha256_canonical({q["query_id"]: q["qrels"] for q in load_fixture(
        next((tmp_path / "other-fixture").glob("*.json"))).data["queries"]})
    assert f"other/fts_only: its fixture {sha256_file(next((tmp_path / 'other-fixture').glob('*.json')))} holds " \
           f"qrels {recomputed}, the comparison records {packaged['qrels']}" in str(data.found), data
    assert "judgements (qrels) digest" in str(experiment.found), experiment


def _baseline_of_other_data(runs: ModelsRuns, tmp_path: Path, where: str) -> Path:
    """A copy of packaged's output directory whose freeze names a fixture of other judgements: placed by its
    locations.json (`where` "placed"), named by its receipts only ("receipts"), or by nothing ("nothing")."""
    baseline = Path(shutil.copytree(runs.packaged, tmp_path / "baseline"))
    fixture: dict[str, Any] = json.loads(runs.packaged_fixture.read_bytes())
    fixture["payload_hashes"]["qrels"] = "sha256:" + "1" * 64
    edited = tmp_path / "other-fixture.json"
    edited.write_text(json.dumps(fixture), encoding="utf-8")
    digest = sha256_file(edited)
    record = json.loads((baseline / "freeze.json").read_bytes())
    record["corpus"]["fixture_sha256"] = digest
    record["freeze_sha256"] = sha256_canonical({k: v for k, v in record.items() if k != "freeze_sha256"})
    (baseline / "freeze.json").write_text(json.dumps(record), encoding="utf-8")
    (baseline / LOCATIONS_NAME).write_text(json.dumps({FIXTURES: {digest: str(edited)}} if where == "placed" else {}),
                                           encoding="utf-8")
    for path in baseline.glob("*.aggregate.json"):
        aggregate = json.loads(path.read_bytes())
        if where == "receipts":
            aggregate["receipt"]["corpus"].update(fixture_sha256=digest, payload_hashes=fixture["payload_hashes"])
            path.write_text(json.dumps(aggregate), encoding="utf-8")
        elif where == "nothing":
            path.unlink()
    return baseline


@pytest.mark.parametrize("where", ["placed", "receipts", "nothing"])
def test_a_hypothesis_against_a_baseline_of_other_data_is_refused(runs: ModelsRuns, tmp_path: Path,
                                                                  where: str) -> None:
    baseline = _baseline_of_other_data(runs, tmp_path, where)
    fixture = load_fixture(runs.mine_fixture)
    expected = ("cannot be told" if where == "nothing" else
                f"the judgements (qrels) digest: {fixture.data['payload_hashes']['qrels']!r} against "
                f"'sha256:{'1' * 64}'")
    with pytest.raises(BaselineDataRefused, match=re.escape(expected)):
        calibrated_and_frozen(tmp_path / "mine-again", fixture, tiny_contract(), mine_family(baseline))
    assert not (tmp_path / "mine-again" / "freeze.json").exists()


def test_the_report_claims_and_the_reader_show_and_check_each_model(runs: ModelsRuns, tmp_path: Path) -> None:
    work = Path(shutil.copytree(runs.mine, tmp_path / "mine"))
    _compare(work, "heldout", f"packaged={runs.packaged}", f"mine={work}")
    write_report(work, tmp_path / "r.html", tmp_path / "r.md", validated=True, replace=False)
    bundle = make_bundle(work, tmp_path / "bundle")
    for page, written in (((tmp_path / "r.md").read_text(encoding="utf-8"), inert),
                          ((bundle / "CLAIMS.md").read_text(encoding="utf-8"), inert)):
        assert written("packaged = builtin") in page and written(f"embedded by {PACKAGED_MODEL})") in page, page
        assert written(f"embedded by {MINE_MODEL})") in page, page
        assert written(f"mine/vector_only [{MINE_MODEL}] \u2212 packaged/vector_only [{PACKAGED_MODEL}]") in page
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert inert(f"mine/vector_only \u2212 packaged/vector_only ({MINE_MODEL} / {PACKAGED_MODEL})") in claims
    assert f"{MINE_MODEL} / {PACKAGED_MODEL}" in (tmp_path / "r.html").read_text(encoding="utf-8")
    carried = {p.relative_to(bundle).as_posix() for p in (bundle / "inputs").rglob("*.json")}
    assert f"inputs/runs/packaged/fixture/{runs.packaged_fixture.name}" in carried
    assert f"inputs/fixture/{runs.mine_fixture.name}" in carried
    lines, code = validate_bundle(bundle, BundleOptions(ollama_url=runs.server.url), lambda _: None)
    assert code == ELIGIBLE, "\n".join(lines)
    assert any(line.startswith("VERDICT") and "tiny-test-systems-heldout.json" in line and "ELIGIBLE" in line
               for line in lines), "\n".join(lines)

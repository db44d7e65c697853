"""The validator's own pins of the dataset: what they hold, what they refuse, and the archive re-derivation.

Every forgery here edits primary data (judgements, queries, documents) and re-derives every digest the fixture
and the receipts state, with the project's own code. The only thing that can refuse it is data the validator
holds itself.
"""

import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from fixtures.archives import TINY_CONTRACT_PATH, tiny_archive, tiny_contract, tiny_members
from fixtures.clean_checkout import mark_clean_checkout
from harness.corpus.contract import scifact_contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.gates.freeze import FreezeError, freeze_configuration
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.modes import SEARCHED as MODES
from harness.publish.bundle import BundleError, make_bundle
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.dataset.derive_pins import derive
from harness.validator.dataset.derive_pins import main as derive_main
from harness.validator.dataset.pins import all_pins
from harness.validator.pipeline import validate

from . import primary_forger
from .support import GIT_CHECKS, CleanRun, Json, RunCopy, assert_fails, check_named, describe, failed_names

ROOT = Path(__file__).resolve().parent.parent


def test_the_tiny_pins_are_what_the_tiny_archive_gives(tmp_path: Path) -> None:
    pins = all_pins()["tiny-test"]
    assert derive(pins, tiny_archive(tmp_path / "tiny.zip")) == asdict(pins)


def test_the_printed_pins_are_the_committed_file_byte_for_byte(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """"Commit the file it prints": its keys in the file's own order, so committing it changes nothing."""
    pins_file = ROOT / "harness" / "validator" / "dataset" / "pins" / "tiny-test.json"
    assert derive_main([str(pins_file), str(tiny_archive(tmp_path / "tiny.zip"))]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(pins_file.read_text(encoding="utf-8"))
    printed_keys = list(json.loads(pins_file.read_text(encoding="utf-8")))
    assert derive_main([str(pins_file), str(tiny_archive(tmp_path / "again.zip"))]) == 0
    assert list(json.loads(capsys.readouterr().out)) == printed_keys


@pytest.mark.parametrize("archive", ["", "missing.zip", "not-a-zip.txt"])
def test_derive_pins_names_a_wrong_archive_without_a_traceback(tmp_path: Path, archive: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "not-a-zip.txt").write_text("plain text\n", encoding="utf-8")
    pins_file = ROOT / "harness" / "validator" / "dataset" / "pins" / "tiny-test.json"
    code = derive_main([str(pins_file), str(tmp_path / archive) if archive else ""])
    error = capsys.readouterr().err
    assert code in (1, 2) and error.startswith("error: ") and "Traceback" not in error, error


@pytest.mark.real_data
def test_the_scifact_pins_are_what_the_real_archive_gives(scifact_archive: Path) -> None:
    pins = all_pins()["beir-scifact"]
    assert derive(pins, scifact_archive) == asdict(pins)
    assert pins.contract["documents"] == 5183 and len(pins.qrels) == 300 and pins.contract["test_qrel_pairs"] == 339


def test_the_harness_contracts_pin_the_same_content_as_the_validator() -> None:
    """Two copies kept apart on purpose (the validator reads nothing of the harness): they must agree."""
    tiny = json.loads(TINY_CONTRACT_PATH.read_text(encoding="utf-8"))
    for contract, pins in ((scifact_contract().pinned_content_sha256, all_pins()["beir-scifact"]),
                           (tiny["pinned_content_sha256"], all_pins()["tiny-test"])):
        assert contract == {k: pins.content_sha256[k] for k in ("documents", "queries", "qrels")}
    assert scifact_contract().ir_datasets_id == all_pins()["beir-scifact"].ir_datasets_id == "beir/scifact/test"
    assert tiny.get("ir_datasets_id") is None and all_pins()["tiny-test"].ir_datasets_id is None


@pytest.mark.real_model
def test_genuine_artifacts_re_derived_from_the_archive_pass(clean_run: CleanRun, tmp_path: Path) -> None:
    report = validate(clean_run.aggregate_path("hybrid", "heldout"), embeddings=False,
                      archive=tiny_archive(tmp_path / "tiny.zip"))
    for name in ("corpus.pinned", "corpus.contract", "corpus.semantic_text", "profile.contract", "archive.members",
                 "archive.content"):
        assert check_named(report, name).status == "pass", describe(report)
    assert not failed_names(report) - GIT_CHECKS, describe(report)
    assert report.notes["dataset"]["name"] == "tiny-test" and "not SciFact" in report.notes["dataset"]["title"]
    assert report.notes["archive"].startswith("re-derived from")


@pytest.mark.real_model
def test_forged_judgements_with_every_digest_re_derived_are_refused_by_the_pins(run_copy: RunCopy) -> None:
    changed = primary_forger.forge_judgements(run_copy, "calibration")
    assert changed
    report = validate(run_copy.aggregate_path("vector_only", "calibration"), embeddings=False)
    assert_fails(report, ("corpus.pinned",))
    detail = str(check_named(report, "corpus.pinned").found)
    assert "judgements differ" in detail and changed[0] in detail, detail


@pytest.mark.real_model
def test_dropped_queries_are_refused_by_the_pins(run_copy: RunCopy) -> None:
    dropped = {row["query_id"] for row in run_copy.rows("hybrid", "heldout")[:2]}
    primary_forger.drop_queries(run_copy, dropped)
    report = validate(run_copy.aggregate_path("hybrid", "calibration"), embeddings=False)
    assert_fails(report, ("corpus.pinned", "corpus.contract"))
    detail = str(check_named(report, "corpus.pinned").found)
    assert "2 missing" in detail and min(dropped) in detail, detail


@pytest.mark.real_model
def test_a_fixture_of_a_dataset_the_validator_does_not_know_is_not_verified_without_its_archive(
        run_copy: RunCopy) -> None:
    primary_forger.rewrite_fixture(run_copy, lambda fixture, _: fixture["contract"].update(name="my-own-corpus"))
    report = validate(run_copy.aggregate_path("fts_only", "calibration"), embeddings=False)
    assert not report.eligible
    pinned = check_named(report, "corpus.pinned")  # a collection of one's own, which only its archive re-derives
    assert pinned.status == "not verified", pinned.line()
    assert "no archive is at hand" in pinned.detail and "--archive tiny-test.zip (sha256 sha256:" in pinned.detail
    assert "dataset" not in report.notes


def _edited_archive(directory: Path) -> Path:
    corpus = tiny_members()["tiny/corpus.jsonl"].replace(b'"text": "', b'"text": "Edited. ', 1)
    return tiny_archive(directory / "edited.zip", {"tiny/corpus.jsonl": corpus})


@pytest.mark.real_model
def test_an_edited_corpus_built_unpinned_with_the_honest_source_pasted_back_is_refused(
        clean_run: CleanRun, local_embedder: LocalEmbedder, tmp_path: Path) -> None:
    contract, config = tiny_contract(), SearchConfig()
    report = build_fixture(contract, out=tmp_path / "fixture" / "tiny.json", work_dir=tmp_path / "work",
                           embedder=local_embedder, archive=_edited_archive(tmp_path), allow_unpinned=True,
                           progress=False)
    honest = json.loads(clean_run.fixture_path.read_text(encoding="utf-8"))["source"]
    primary_forger.reseal_fixture(report.fixture, lambda fixture, _: fixture.update(source=honest))
    fixture = load_fixture(report.fixture)
    assert fixture.data["source"]["payload_pinned"] is True  # what the fixture says of itself
    store, _ = build_store(tmp_path / "store", fixture, contract.namespace, config.lexical)
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=tmp_path / "out",
                         split="calibration", config=config), contract)
    verdict = validate(tmp_path / "out" / "tiny-test-fts_only-calibration.aggregate.json", embeddings=False)
    assert_fails(verdict, ("corpus.pinned",))
    assert "documents differ" in str(check_named(verdict, "corpus.pinned").found)
    with pytest.raises(FreezeError, match="not the pinned tiny-test dataset: its documents differ"):
        freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract, modes=MODES,
                             output_dir=tmp_path / "out", argv=[], allow_dirty=True, replace=False)



def _judged_by_the_next_document(fixture: Json, _: Path) -> None:
    """Every judged document replaced by the one after it in the corpus: the shape of the judgements kept."""
    documents = [d["doc_id"] for d in fixture["documents"]]
    for query in fixture["queries"]:
        query["qrels"] = {documents[(documents.index(d) + 1) % len(documents)]: g for d, g in query["qrels"].items()}


@pytest.mark.real_model
def test_forged_judgements_are_not_frozen_and_never_bundled(local_embedder: LocalEmbedder, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The forger edits the fixture right after the build, before the store: every later step runs on it."""
    contract, config = tiny_contract(), SearchConfig()
    built = build_fixture(contract, out=tmp_path / "fixture" / "tiny.json", work_dir=tmp_path / "work",
                          embedder=local_embedder, archive=tiny_archive(tmp_path / "tiny.zip"), progress=False)
    primary_forger.reseal_fixture(built.fixture, _judged_by_the_next_document)
    fixture = load_fixture(built.fixture)
    store, _ = build_store(tmp_path / "store", fixture, contract.namespace, config.lexical)
    out = tmp_path / "out"

    def evaluate(split: str) -> None:
        run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split=split,
                             config=config), contract)

    def freeze() -> None:
        freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract, modes=MODES,
                             output_dir=out, argv=[], allow_dirty=True, replace=False)
    evaluate("calibration")
    with pytest.raises(FreezeError, match="its qrels differ from the contract's pinned digests"):
        freeze()
    monkeypatch.setattr("harness.evaluation.gates.freeze.unpinned_parts", lambda *_: [])  # the harness's check removed
    freeze()
    evaluate("heldout")
    mark_clean_checkout(out)
    for mode in MODES:
        report = validate(out / f"tiny-test-{mode}-heldout.aggregate.json", embeddings=False)
        assert_fails(report, ("corpus.pinned",))
    with pytest.raises(BundleError, match=r"corpus\.pinned"):
        make_bundle(out, tmp_path / "bundle")
    assert not (tmp_path / "bundle").exists()


def _validator(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.validator", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.real_model
def test_the_command_line_re_derives_from_the_archive_it_is_given(clean_run: CleanRun, tmp_path: Path) -> None:
    aggregate = clean_run.aggregate_path("fts_only", "calibration")
    done = _validator(aggregate, "--no-embedding-check", "--archive", tiny_archive(tmp_path / "tiny.zip"))
    lines = done.stdout.splitlines()
    assert any(line.startswith("PASS") and "archive.content" in line for line in lines), done.stdout
    assert any(line.startswith("ARCHIVE") and "re-derived from" in line for line in lines), done.stdout
    assert any(line.startswith("DATASET") and "not SciFact" in line for line in lines), done.stdout


@pytest.mark.parametrize("args", [("--archive", "no-such.zip"), ("--archive", "."),
                                  ("--full-embedding", "--no-embedding-check")])
def test_archive_and_embedding_options_are_checked_before_any_work(args: tuple[str, ...]) -> None:
    done = _validator("some.aggregate.json", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    typed = os.path.relpath(sys.executable, ROOT) if Path(sys.executable).is_relative_to(ROOT) else sys.executable
    assert done.stderr.startswith(f"error: {typed} -m harness.validator: ") and not done.stdout, done.stderr


def test_a_fixture_of_the_pinned_content_that_says_it_was_not_pinned_fails(clean_run: CleanRun) -> None:
    """What the fixture says of its own payload is held to what the validator finds: the pinned content, stated as
    unpinned, is a misstatement (fuzzing found it passed)."""
    from harness.validator.core.report import Report
    from harness.validator.dataset.check_dataset import check_dataset

    fixture = json.loads(clean_run.fixture_path.read_text(encoding="utf-8"))
    receipt = json.loads(clean_run.aggregate_path("fts_only", "calibration").read_text(encoding="utf-8"))["receipt"]
    honest = Report("honest")
    check_dataset(fixture, receipt, honest)
    assert check_named(honest, "corpus.pinned").status == "pass"
    fixture["source"]["payload_pinned"] = False
    misstated = Report("misstated")
    check_dataset(fixture, receipt, misstated)
    assert check_named(misstated, "corpus.pinned").status == "fail"
    assert "yet the fixture says its payload was not pinned" in str(check_named(misstated, "corpus.pinned").found)

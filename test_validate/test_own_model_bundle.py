"""A model of one's own through the whole flow (build, calibration, freeze, held-out, bundle) and its reader on
another machine: the model carried, or fetched and named, or absent (not verified, saying what to fetch), or a copy
with one weight changed (failed, naming the file). No receipt or bundle text holds a place of the publisher's."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import tiny_archive, tiny_contract
from fixtures.bundle_reader import fresh_reader, out_of_reach
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.cut_model import cut_model
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.receipts.locations import place_model
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.modes import SEARCHED as MODES
from harness.publish.bundle import make_bundle
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.cli import main
from harness.validator.embedding import check_embeddings, model_at_hand

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The tiny corpus embedded by the packaged model cut to 3 layers, run, frozen, run on held-out and bundled twice:
    with the model carried and without."""
    root = tmp_path_factory.mktemp("own-model-flow")
    model = cut_model(root / "models" / "minilm-3")
    contract, config = tiny_contract(), SearchConfig()
    embedder = LocalEmbedder(str(model))
    report = build_fixture(contract, out=root / "fixture" / "tiny.json", work_dir=root / "work", embedder=embedder,
                           archive=tiny_archive(root / "tiny.zip"), progress=False)
    place_model(report.fixture.parent, embedder)
    fixture = load_fixture(report.fixture)
    store, _ = build_store(root / "store", fixture, contract.namespace, config.lexical)
    out, argv = root / "out", ("pytest", "test_validate")
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="calibration",
                         config=config, argv=argv), contract)
    freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract, modes=MODES,
                         output_dir=out, argv=list(argv), allow_dirty=True, replace=False,
                         allow_failed_calibration=False)
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="heldout",
                         config=config, argv=argv), contract)
    mark_clean_checkout(out)
    return {"root": root, "model": model, "carried": make_bundle(out, root / "bundles" / "carried", carry_model=True),
            "plain": make_bundle(out, root / "bundles" / "plain"), "archive": root / "tiny.zip"}


@pytest.fixture
def reader(published: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Another machine: a cache of its own, nothing re-embedded or offered before, the publisher's model, work
    directory and outputs out of reach."""
    fresh_reader(tmp_path, monkeypatch)
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})
    monkeypatch.setattr(model_at_hand, "_OFFERED", [])
    root = published["root"]
    with out_of_reach(published["model"], root / "fixture", root / "store", root / "out", root / "work"):
        yield


def _judge(bundle: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    code = main(["--bundle", str(bundle), *options])
    return code, capsys.readouterr().out


def test_a_carried_model_is_verified_by_a_reader_who_has_nothing_else(
        published: dict[str, Path], reader: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _judge(published["carried"], capsys)
    assert code == 0, out
    assert out.splitlines()[-1].startswith("BUNDLE       ELIGIBLE for a claim"), out
    claims = (published["carried"] / "CLAIMS.md").read_text(encoding="utf-8")
    assert "the embedding model `minilm-3` is carried, `inputs/model/minilm-3/` (" in claims
    assert " MB), held to every file its fixture declares" in claims


def test_without_the_model_the_reader_is_not_verified_and_told_what_to_get(
        published: dict[str, Path], reader: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _judge(published["plain"], capsys)
    assert code == 7, out
    assert "NOT VERIFIED embeddings.model" in out and "with --model DIR (ask the publisher" in out, out
    claims = (published["plain"] / "CLAIMS.md").read_text(encoding="utf-8")
    [command] = [line for line in claims.splitlines() if line.startswith("../") and "--bundle ." in line]
    assert command.endswith(" --model ../minilm-3") and "# put the model 'minilm-3' (files sha256" in claims
    assert "`scifact-validate --bundle . --archive ../scifact.zip --model ../minilm-3`" in claims


def test_the_reader_names_the_model_they_fetched(published: dict[str, Path], reader: Any, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    fetched = shutil.copytree(published["carried"] / "inputs" / "model" / "minilm-3", tmp_path / "minilm-3")
    code, out = _judge(published["plain"], capsys, "--model", str(fetched))
    assert code == 0, out


def test_a_copy_with_one_weight_changed_fails_naming_the_file(published: dict[str, Path], reader: Any, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    copy = shutil.copytree(published["carried"] / "inputs" / "model" / "minilm-3", tmp_path / "minilm-3")
    weights = bytearray((copy / "model.safetensors").read_bytes())
    weights[-11] ^= 0x01
    (copy / "model.safetensors").write_bytes(bytes(weights))
    code, out = _judge(published["plain"], capsys, "--model", str(copy))
    assert code == 1, out
    assert "its file 'model.safetensors' differs" in out, out


def test_no_receipt_or_bundle_text_holds_a_place_of_the_publishers(published: dict[str, Path]) -> None:
    root = str(published["root"])
    for bundle in (published["carried"], published["plain"]):
        found = [path.relative_to(bundle).as_posix() for path in sorted(bundle.rglob("*"))
                 if path.is_file() and path.suffix in {".json", ".jsonl", ".md", ".html", ".txt", ".csv", ".tsv"}
                 and root in path.read_text(encoding="utf-8", errors="replace")]
        assert found == [], found
    fixture = json.loads((published["carried"] / "fixture-metadata.json").read_text(encoding="utf-8"))
    assert fixture["embedding"]["model"] == "minilm-3"

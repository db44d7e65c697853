"""The bundle carries its inputs: the fixture and the store under `inputs/`, each held to the receipts' digests when
the bundle is made; its reader validates from them with the publisher's fixture and store out of reach; a forged
carried vector is caught by the reader's own re-embedding, a changed store part is named."""

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from fixtures.archives import tiny_archive
from fixtures.bundle_reader import fresh_reader, out_of_reach, reseal
from harness.evaluation.receipts.locations import LOCATIONS_NAME, STORES
from harness.publish.bundle import BundleError, make_bundle
from harness.publish.bundle_inputs import stage_inputs
from harness.validator.bundle_manifest import manifest_problems
from harness.validator.cli import main

from .support import CleanRun, RunCopy, sha256_file
from .test_bundle import as_clean_checkout

pytestmark = pytest.mark.real_model


@dataclass(frozen=True)
class Published:
    bundle: Path
    out: Path  # the publisher's output directory the bundle was made from


@pytest.fixture(scope="module")
def published(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Published:
    copy = RunCopy.make(clean_run, tmp_path_factory.mktemp("inputs-run"))
    as_clean_checkout(copy)
    return Published(make_bundle(copy.out, tmp_path_factory.mktemp("inputs-bundle") / "bundle"), copy.out)


@pytest.fixture
def reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fresh_reader(tmp_path, monkeypatch)


def _elsewhere(published: Published, tmp_path: Path) -> Path:
    return Path(shutil.copytree(published.bundle, tmp_path / "elsewhere" / "bundle"))


def _judge(bundle: Path, archive: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["--bundle", str(bundle), "--archive", str(archive)])
    return code, capsys.readouterr().out


def _publishers(clean_run: CleanRun, published: Published) -> tuple[Path, ...]:
    return clean_run.fixture_path.parent, clean_run.store_dir, published.out


def _lines(out: str, check: str) -> list[str]:
    return [line for line in out.splitlines() if f" {check}:" in line]


def test_the_bundle_carries_the_fixture_and_the_store_listed_in_its_manifest(published: Published,
                                                                            clean_run: CleanRun) -> None:
    bundle = published.bundle
    sidecar = json.loads(clean_run.fixture_path.read_bytes())["vectors"]["file"]
    carried = {f"inputs/fixture/{clean_run.fixture_path.name}": clean_run.fixture_path,
               f"inputs/fixture/{sidecar}": clean_run.fixture_path.parent / sidecar,
               **{f"inputs/store/{name}": clean_run.store_dir / name
                  for name in ("store.json", "facts.sqlite3", "mapping.json", "dense.f32")}}
    listed = json.loads((bundle / "MANIFEST.json").read_bytes())["files"]
    for name, original in carried.items():
        assert (bundle / name).read_bytes() == original.read_bytes(), name
        assert listed[name] == sha256_file(bundle / name)
    lexical = sorted(p.relative_to(clean_run.store_dir).as_posix() for p in (clean_run.store_dir / "lexical").rglob("*")
                     if p.is_file())
    assert lexical and all(f"inputs/store/{name}" in listed for name in lexical)
    assert "inputs/store/ledger.sqlite3" in listed
    assert not [name for name in listed if name.startswith("inputs/runs/")]  # no comparison between systems here


def test_a_bundle_elsewhere_is_eligible_without_the_publishers_fixture_and_store(
        published: Published, clean_run: CleanRun, reader: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _elsewhere(published, tmp_path)
    archive = tiny_archive(tmp_path / "tiny.zip")
    with out_of_reach(*_publishers(clean_run, published)):
        code, out = _judge(bundle, archive, capsys)
        assert manifest_problems(bundle) == []  # reading it wrote nothing into it
    assert code == 0, out
    assert out.splitlines()[-1].startswith("BUNDLE       ELIGIBLE for a claim"), out
    assert all(line.startswith("PASS") for line in _lines(out, "store.facts")), out
    assert len(_lines(out, "store.facts")) == len(list((bundle / "artifacts").glob("*.aggregate.json")))
    assert str(clean_run.store_dir) not in "\n".join(_lines(out, "ledger.file"))  # the carried ledger was read


def test_a_forged_carried_vector_is_caught_by_the_readers_re_embedding(
        published: Published, clean_run: CleanRun, reader: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """One carried vector replaced by another document's, and MANIFEST.json resealed: every byte is as listed, and
    the reader's re-embedding of that document disagrees."""
    bundle = _elsewhere(published, tmp_path)
    fixture = json.loads((bundle / "inputs" / "fixture" / clean_run.fixture_path.name).read_bytes())
    sidecar = bundle / "inputs" / "fixture" / fixture["vectors"]["file"]
    vectors = np.frombuffer(sidecar.read_bytes(), dtype="<f4").reshape(-1, fixture["vectors"]["dimensions"]).copy()
    vectors[2] = vectors[3]
    sidecar.write_bytes(vectors.astype("<f4").tobytes())
    reseal(bundle)
    assert manifest_problems(bundle) == []
    with out_of_reach(*_publishers(clean_run, published)):
        code, out = _judge(bundle, tiny_archive(tmp_path / "tiny.zip"), capsys)
    assert code == 1, out
    caught = _lines(out, "embeddings.model")
    assert caught and all(line.startswith("FAIL") for line in caught), caught
    forged = fixture["documents"][2]["doc_id"]
    assert all(forged in line for line in caught), caught  # the document whose vector was replaced
    assert "NOT ELIGIBLE for a claim" in out.splitlines()[-1]


def test_a_changed_carried_store_part_is_named(published: Published, clean_run: CleanRun, reader: Path,
                                               tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _elsewhere(published, tmp_path)
    dense = bundle / "inputs" / "store" / "dense.f32"
    data = bytearray(dense.read_bytes())
    data[5] ^= 0x01
    dense.write_bytes(bytes(data))
    assert [p for p in manifest_problems(bundle) if p.startswith("inputs/store/dense.f32 changed")]
    reseal(bundle)
    with out_of_reach(*_publishers(clean_run, published)):
        code, out = _judge(bundle, tiny_archive(tmp_path / "tiny.zip"), capsys)
    assert code == 1, out
    failed = _lines(out, "store.parts")
    assert failed and all(line.startswith("FAIL") and "dense" in line for line in failed), failed
    assert "NOT ELIGIBLE for a claim" in out.splitlines()[-1]


def _staging_of(published: Published, tmp_path: Path) -> Path:
    staging = tmp_path / "staging"
    shutil.copytree(published.bundle / "artifacts", staging / "artifacts")
    return staging


def _edit_receipt(path: Path, key: str, field: str, value: str) -> None:
    aggregate = json.loads(path.read_bytes())
    aggregate["receipt"][key][field] = value
    path.write_text(json.dumps(aggregate), encoding="utf-8")


def test_a_store_part_that_is_not_what_the_receipts_bind_refuses_the_inputs(
        published: Published, clean_run: CleanRun, tmp_path: Path) -> None:
    store = Path(shutil.copytree(clean_run.store_dir, tmp_path / "store"))
    (store / "mapping.json").write_bytes((store / "mapping.json").read_bytes() + b"\n")
    staging = _staging_of(published, tmp_path)
    home = tmp_path / "output"  # an output directory whose locations.json places the changed copy
    home.mkdir()
    places = json.loads((published.out / LOCATIONS_NAME).read_text(encoding="utf-8"))
    places[STORES] = {digest: str(store) for digest in places[STORES]}
    (home / LOCATIONS_NAME).write_text(json.dumps(places), encoding="utf-8")
    with pytest.raises(BundleError, match=r"the store part 'mapping' .*mapping\.json is not what the receipts bind "
                                          r"\(they bind sha256:\w+; it is now sha256:\w+\), so nothing was bundled; "
                                          r"restore the store"):
        stage_inputs(staging, home)
    assert not (staging / "inputs").exists()


def test_one_run_s_receipts_of_two_fixtures_refuse_the_inputs_naming_both(published: Published,
                                                                          tmp_path: Path) -> None:
    staging = _staging_of(published, tmp_path)
    other = staging / "artifacts" / "tiny-test-hybrid-heldout.aggregate.json"
    _edit_receipt(other, "corpus", "fixture_sha256", "sha256:" + "0" * 64)
    with pytest.raises(BundleError, match=r"artifacts/tiny-test-\w+-\w+\.aggregate\.json read the fixture sha256:\w+ "
                                          r"and artifacts/tiny-test-hybrid-heldout\.aggregate\.json read sha256:0+, "
                                          r"but they are one run's receipts, and a run reads one fixture"):
        stage_inputs(staging, published.out)

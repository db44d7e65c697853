"""`scifact-validate --bundle DIR`, the reader's one command: a real bundle of the tiny corpus, judged with a cache of
the reader's own; a changed byte named; a forged vector behind a self-sealed kept re-embedding caught by the full
re-embedding; no stored verdict or kept record reused."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from fixtures.archives import tiny_archive
from fixtures.bundle_reader import fresh_reader
from harness.evaluation.receipts.locations import LOCATIONS_NAME
from harness.publish.bundle import make_bundle
from harness.validator.cli import main
from harness.validator.embedding.embedders import verifier
from harness.validator.embedding.kept_run import keeping
from harness.validator.verdicts.re_embedding import remember

from .support import CleanRun, RunCopy, sha256_bytes, sha256_file
from .test_bundle import as_clean_checkout

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def bundle(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle of the clean run, made once; tests judge copies of it."""
    copy = RunCopy.make(clean_run, tmp_path_factory.mktemp("reader-run"))
    as_clean_checkout(copy)
    return make_bundle(copy.out, tmp_path_factory.mktemp("reader-bundle") / "bundle")


@pytest.fixture
def reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fresh_reader(tmp_path, monkeypatch)


def _judge(bundle: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    code = main(["--bundle", str(bundle), *options])
    return code, capsys.readouterr().out


def test_an_honest_bundle_is_eligible_for_its_reader(bundle: Path, clean_run: CleanRun, reader: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The receipts name the fixture and store by digest, not by place: the reader names them."""
    archive = tiny_archive(tmp_path / "tiny.zip")
    code, out = _judge(bundle, capsys, "--archive", str(archive), "--fixture", str(clean_run.fixture_path),
                       "--store-dir", str(clean_run.store_dir))
    assert code == 0, out
    verdicts = [line for line in out.splitlines() if line.startswith("VERDICT") and "artifacts/" in line]
    artifacts = sorted(p.relative_to(bundle).as_posix() for p in (bundle / "artifacts").glob("*.json"))
    assert len(verdicts) == len(artifacts) and all(f"ELIGIBLE: {name}:" in out for name in artifacts), out
    assert out.splitlines()[-1].startswith("BUNDLE       ELIGIBLE for a claim"), out
    assert "re-embedded with" in out and "; reused" not in out and "STORED" not in out
    assert "RECOMPUTED" in out and "the publisher's word" in out
    assert not list((reader / "scifact-harness").glob("re-embeddings/*")), "the bundle's check keeps nothing"


def test_one_changed_byte_of_an_aggregate_is_named(bundle: Path, reader: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    changed = Path(shutil.copytree(bundle, tmp_path / "changed"))
    target = changed / "artifacts" / "tiny-test-fts_only-heldout.aggregate.json"
    data = target.read_bytes()
    target.write_bytes(data.replace(b'"mode"', b'"mode" ', 1))
    (changed / "extra.txt").write_text("added\n", encoding="utf-8")
    code, out = _judge(changed, capsys)
    assert code == 1, out
    assert "artifacts/tiny-test-fts_only-heldout.aggregate.json changed: its sha256 is" in out, out
    assert "extra.txt is not in MANIFEST.json" in out
    assert "NOT ELIGIBLE for a claim" in out.splitlines()[-1] and "MANIFEST.json" in out.splitlines()[-1]


def test_a_forged_vector_behind_a_self_sealed_kept_re_embedding_is_caught(
        bundle: Path, clean_run: CleanRun, reader: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The fixture's vector of a document replaced, and a kept full re-embedding sealed for those very bytes saying
    every vector agreed: the ordinary --full-embedding believes the record; --bundle re-embeds and fails."""
    fixture_path = tmp_path / "forged" / clean_run.fixture_path.name
    fixture_path.parent.mkdir()
    fixture = json.loads(clean_run.fixture_path.read_text(encoding="utf-8"))
    sidecar = fixture_path.parent / fixture["vectors"]["file"]
    dims = fixture["vectors"]["dimensions"]
    vectors = np.frombuffer((clean_run.fixture_path.parent / fixture["vectors"]["file"]).read_bytes(),
                            dtype="<f4").reshape(-1, dims).copy()
    vectors[2] = vectors[3]
    sidecar.write_bytes(vectors.astype("<f4").tobytes())
    fixture["vectors"]["sha256"] = sha256_bytes(sidecar.read_bytes())
    fixture_path.write_bytes(json.dumps(fixture, ensure_ascii=False, indent=1).encode("utf-8") + b"\n")
    verification, _ = verifier(fixture["embedding"], None)
    kept = keeping(sha256_file(fixture_path), sidecar, verification)
    assert kept is not None
    remember(kept.kept("full").material, {"texts": len(vectors), "largest": 0.0, "worst": "0 (document none)"})

    aggregate = bundle / "artifacts" / "tiny-test-vector_only-calibration.aggregate.json"
    main([str(aggregate), "--fixture", str(fixture_path), "--full-embedding", "--revalidate",
          "--verdicts", str(tmp_path)])
    believed = [line for line in capsys.readouterr().out.splitlines() if " embeddings.model:" in line]
    assert believed and believed[0].startswith("PASS") and "; reused" in believed[0], believed

    code, out = _judge(bundle, capsys, "--fixture", str(fixture_path))
    assert code == 1, out
    caught = [line for line in out.splitlines() if " embeddings.model:" in line]
    assert caught and all(line.startswith("FAIL") for line in caught), caught
    assert all("; reused" not in line for line in caught)


def test_claims_tell_the_reader_the_one_command(bundle: Path) -> None:
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    reader = claims.split("## Check it yourself", 1)[1]
    commands = reader.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert commands[-1].endswith("/bin/scifact-validate --bundle . --archive ../scifact.zip"), commands
    assert f"the last, `{commands[-1].rsplit('/bin/', 1)[1]}`," in claims  # the one command the other lines name
    established, word = claims.split("## What the validator established", 1)[1].split("## What was taken", 1)
    assert "reused" not in established  # a kept re-embedding or stored verdict is the publisher's word
    assert ("Re-embedding with the declared model" in established) != ("- re-embedding, a kept record reused" in word)


def _text_files(bundle: Path) -> dict[str, str]:
    found = {}
    for path in sorted(bundle.rglob("*")):
        try:
            found[path.relative_to(bundle).as_posix()] = path.read_text(encoding="utf-8")
        except (IsADirectoryError, UnicodeDecodeError):
            continue
    return found


def _local_prefixes(clean_run: CleanRun) -> list[str]:
    """The temporary directory the run's session wrote under, and the home directory."""
    return [str(clean_run.root.parent.parent), str(Path.home())]


def test_the_bundles_own_writings_hold_no_local_path(bundle: Path, clean_run: CleanRun) -> None:
    own = {name: text for name, text in _text_files(bundle).items()
           if not name.startswith(("artifacts/", "freeze.json", "system-source/"))}
    assert {"CLAIMS.md", "environment.json", "validation/tiny-test-hybrid-heldout.validation.json"} <= set(own)
    leaks = {name: prefix for name, text in own.items() for prefix in _local_prefixes(clean_run) if prefix in text}
    assert not leaks, leaks
    machine = json.loads(own["environment.json"])["machine"]
    assert "hostname" not in machine and "logical cores) running" in machine["ran_on"]
    assert json.loads(own["fixture-metadata.json"])["fixture_file"] == clean_run.fixture_path.name


def test_no_text_file_of_the_bundle_holds_a_local_path(bundle: Path, clean_run: CleanRun) -> None:
    """Not even the receipts and freeze record, published byte for byte: they name files, never places; and the run's
    local locations.json, which places them, is neither copied nor listed."""
    leaks = {name: prefix for name, text in _text_files(bundle).items() for prefix in _local_prefixes(clean_run)
             if prefix in text}
    assert not leaks, leaks
    assert (clean_run.out / LOCATIONS_NAME).is_file()
    assert not list(bundle.rglob(LOCATIONS_NAME))
    listed = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
    assert not [name for name in listed if name.endswith(LOCATIONS_NAME)]


def test_the_readers_dataset_is_held_to_every_artifact(bundle: Path, clean_run: CleanRun, reader: Path,
                                                       tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--bundle DIR --dataset NAME`: every artifact of an honest bundle of another dataset fails dataset.named."""
    archive = tiny_archive(tmp_path / "tiny.zip")
    code, out = _judge(bundle, capsys, "--archive", str(archive), "--fixture", str(clean_run.fixture_path),
                       "--store-dir", str(clean_run.store_dir), "--dataset", "scifact")
    assert code == 1, out
    artifacts = list((bundle / "artifacts").glob("*.json"))
    named = [line for line in out.splitlines() if line.split()[:2] == ["FAIL", "dataset.named:"]]
    assert len(named) == len(artifacts) and all("--dataset scifact" in line for line in named), out
    assert "NOT ELIGIBLE for a claim" in out.splitlines()[-1], out

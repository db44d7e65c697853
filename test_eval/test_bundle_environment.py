"""What a bundle gives its reader to rebuild the environment: the harness wheel that made the runs (the installed
files packed again, the same identity once installed), a lock of every distribution at its version, checked against
the receipts first, and CLAIMS.md's commands from a bare machine; a collection of one's own travels with its
archive."""

import importlib.metadata
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.receipts.locations import ARCHIVES, record_locations
from harness.hashing import sha256_file
from harness.publish.bundle_archive import stage_archive
from harness.publish.bundle_error import BundleError
from harness.publish.claims.claims_reader import reader_archive, reader_section
from harness.publish.environment.carried_model import CarriedModel
from harness.publish.environment.environment_lock import (
    TORCH_CPU_INDEX,
    Installed,
    _origin,
    check_unchanged,
    installed_here,
    lock_text,
    normalized,
    stage_lock,
    torch_command,
)
from harness.publish.environment.harness_wheel import _repacked, wheel_files_sha256, wheel_name
from harness.publish.environment.refused import EnvironmentRefused
from harness.publish.environment.stage import StagedEnvironment
from harness.record_files import files_sha256


def test_an_installed_distribution_packed_again_installs_with_the_same_files() -> None:
    distribution = importlib.metadata.distribution("idna")  # any wheel-installed distribution packs the same way
    data = _repacked(distribution)
    record = distribution.read_text("RECORD")
    assert record is not None and wheel_files_sha256(data) == files_sha256(record)
    assert _repacked(distribution) == data  # the same files, the same bytes
    assert wheel_name(distribution) == f"idna-{distribution.version}-py3-none-any.whl"


def test_the_packed_wheel_installs_as_pip_installs_it(tmp_path: Path) -> None:
    distribution = importlib.metadata.distribution("idna")
    wheel = tmp_path / wheel_name(distribution)
    wheel.write_bytes(_repacked(distribution))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile", "--target",
                    str(tmp_path / "target"), str(wheel)], check=True, capture_output=True)
    [installed] = (tmp_path / "target").glob("idna-*.dist-info")
    assert files_sha256((installed / "RECORD").read_text(encoding="utf-8")) == wheel_files_sha256(wheel.read_bytes())


def _aggregate(dependencies: dict[str, str | None], distributions: dict[str, str],
               files: dict[str, str | None]) -> dict[str, Any]:
    return {"mode": "hybrid", "split": "heldout",
            "receipt": {"dependencies": dependencies, "system": {"distributions": distributions,
                                                                  "distribution_files": files}}}


def test_the_lock_pins_every_distribution_here_but_the_harness_and_pip() -> None:
    installed = installed_here()
    text = lock_text(installed, "scifact-harness", "scifact_harness-0.1.0-py3-none-any.whl")
    lines = text.splitlines()
    assert f"numpy=={importlib.metadata.version('numpy')}" in lines
    assert not [line for line in lines if line.lower().startswith(("scifact-harness==", "pip=="))]
    assert "# scifact-harness: the wheel beside this file (scifact_harness-0.1.0-py3-none-any.whl)" in lines
    local = {"mine": Installed("mine", "1.0", "installed editable from file:///home/me/mine")}
    assert "# mine 1.0: installed editable from file:///home/me/mine; no index gives it" in lock_text(
        local, "scifact-harness", None)


def test_the_lock_reads_exactly_this(tmp_path: Path) -> None:
    installed = {"numpy": Installed("numpy", "2.4.6", None), "pip": Installed("pip", "26.0", None),
                 "scifact-harness": Installed("scifact-harness", "0.1.0", None),
                 "typing-extensions": Installed("typing_extensions", "4.16.0", None),
                 "mine": Installed("mine", "1.0", "installed editable from file:///home/me/mine")}
    header = ("# The environment the bundled runs were made in, every distribution at its exact version. From the\n"
              "# bundle's directory, after torch (CLAIMS.md, \"Check it yourself\"): pip install -r\n")
    assert lock_text(installed, "scifact-harness", "w.whl") == (
        header + "# environment/requirements.txt environment/w.whl\nnumpy==2.4.6\ntyping_extensions==4.16.0\n"
        "# scifact-harness: the wheel beside this file (w.whl)\n"
        "# mine 1.0: installed editable from file:///home/me/mine; no index gives it\n")
    assert lock_text({"numpy": installed["numpy"]}, "scifact-harness", None) == (
        header + "# environment/requirements.txt\nnumpy==2.4.6\n"
        "# scifact-harness: a clone at the commit the receipts name (no wheel made these runs)\n")
    staging = tmp_path / "staging"
    for _ in range(2):  # environment/ made once, then found
        lock = stage_lock(staging, [], "scifact-harness", None, {"numpy": installed["numpy"]})
        assert lock == staging / "environment" / "requirements.txt"
        assert lock.read_bytes() == lock_text({"numpy": installed["numpy"]}, "scifact-harness", None).encode("utf-8")


def _distribution(site: Path, name: str, direct_url: str | None) -> importlib.metadata.Distribution:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    if direct_url is not None:
        (info / "direct_url.json").write_text(direct_url, encoding="utf-8")
    return importlib.metadata.PathDistribution(info)


@pytest.mark.parametrize(("direct_url", "origin"), [
    (None, None),
    ('{"url": "file:///home/me/mine", "dir_info": {"editable": true}}', "installed editable from file:///home/me/mine"),
    ('{"url": "file:///home/me/mine", "dir_info": {}}', "installed from file:///home/me/mine"),
    ('{"url": "https://git.example/mine.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}',
     "installed from https://git.example/mine.git at abc123"),
    ('{"url": "file:///tmp/mine-1.0-py3-none-any.whl", "archive_info": {}}',
     "installed from file:///tmp/mine-1.0-py3-none-any.whl"),
    ("not JSON", "installed from a place its direct_url.json does not say"),
    ("null", None),
])
def test_what_no_index_gives_is_told_by_its_direct_url(tmp_path: Path, direct_url: str | None,
                                                       origin: str | None) -> None:
    assert _origin(_distribution(tmp_path / "site", "mine", direct_url)) == origin


def test_distributions_are_keyed_by_their_normalized_names() -> None:
    installed = installed_here()
    assert installed["pystemmer"].name == "PyStemmer" and installed["typing-extensions"].local is None
    assert normalized("Typing_Extensions.x") == "typing-extensions-x"


def test_torch_is_installed_first_its_cpu_build_from_its_own_index() -> None:
    assert TORCH_CPU_INDEX == "https://download.pytorch.org/whl/cpu"
    cpu = {"torch": Installed("torch", "2.13.0+cpu", None)}
    assert torch_command("pip", cpu) == f"pip install --no-deps --index-url {TORCH_CPU_INDEX} torch==2.13.0+cpu"
    assert torch_command("pip", {"torch": Installed("torch", "2.13.0", None)}) == "pip install --no-deps torch==2.13.0"
    assert torch_command("pip", {}) is None


def test_an_environment_changed_since_the_runs_refuses_the_lock_naming_the_distribution() -> None:
    installed = installed_here()
    numpy = importlib.metadata.version("numpy")
    record = importlib.metadata.distribution("numpy").read_text("RECORD") or ""
    check_unchanged([_aggregate({"numpy": numpy, "absent-thing": None}, {"numpy": numpy},
                                {"numpy": files_sha256(record)})], installed)
    with pytest.raises(EnvironmentRefused) as refused:
        check_unchanged([_aggregate({"numpy": "0.0.1"}, {"bm25s": "0.0.2"}, {})] * 2, installed)
    assert str(refused.value) == (
        "the environment here is not the one the runs were made in, and the bundle locks this one: bm25s 0.0.2 (bound "
        f"by the hybrid heldout receipt; here {importlib.metadata.version('bm25s')}); numpy 0.0.1 (bound by the "
        f"hybrid heldout receipt; here {numpy}). Reinstall what the runs used (pip install NAME==VERSION), or bundle "
        "from the environment that ran")
    with pytest.raises(EnvironmentRefused, match=rf"one: numpy's files \(RECORD digest sha256:0{{64}} at the hybrid "
                                                 rf"heldout run, {files_sha256(record)} here\)\. Reinstall"):
        check_unchanged([_aggregate({}, {"numpy": numpy}, {"numpy": "sha256:" + "0" * 64})], installed)
    with pytest.raises(EnvironmentRefused, match=r"not-installed-anywhere 1\.0 .*here not installed"):
        check_unchanged([_aggregate({}, {"not-installed-anywhere": "1.0"}, {})], installed)


def _receipt(contract: str) -> dict[str, Any]:
    return {"executable": {"python_version": "3.11.7"}, "corpus": {"contract": {"name": contract}},
            "source": {"git": {"commit": "ab" * 20}},
            "embedding": {"model": PACKAGED, "identity": {"model": PACKAGED}}}


PACKAGED = "sentence-transformers/all-MiniLM-L6-v2"
OWN = {"model": "intfloat/e5-small-v2", "revision": "f" * 40, "files": {"model.safetensors": "sha256:" + "1" * 64},
       "model_files_sha256": "sha256:" + "2" * 64}


def test_the_reader_is_told_how_to_get_a_model_of_the_publishers_own() -> None:
    hub = {"model": OWN["model"], "identity": OWN}
    fetched = _commands(reader_section({**_receipt("beir-scifact"), "embedding": hub}, {}, None, None))
    assert fetched[-2:] == [f"../scifact-harness/.venv/bin/huggingface-cli download intfloat/e5-small-v2 --revision "
                            f"{'f' * 40}", "../scifact-harness/.venv/bin/scifact-validate --bundle . --archive "
                            "../scifact.zip"]
    directory = {"model": "minilm-3", "identity": {**OWN, "model": "minilm-3", "revision": None}}
    named = _commands(reader_section({**_receipt("beir-scifact"), "embedding": directory}, {}, None, None))
    assert named[-2] == (f"# put the model 'minilm-3' (files sha256 sha256:{'2' * 64}) at ../minilm-3: ask the "
                         "publisher for it")
    assert named[-1].endswith("--bundle . --archive ../scifact.zip --model ../minilm-3")
    carried = reader_section({**_receipt("beir-scifact"), "embedding": directory}, {}, None, None,
                             CarriedModel("inputs/model/minilm-3", 9, 2_500_000))
    assert "the embedding model `minilm-3` is carried, `inputs/model/minilm-3/` (9 files, 2.5 MB)" in "\n".join(carried)
    assert _commands(carried)[-1].endswith("--bundle . --archive ../scifact.zip")
    assert not [line for line in _commands(reader_section(_receipt("beir-scifact"), {}, None, None))
                if "model" in line]


def _commands(lines: list[str]) -> list[str]:
    return "\n".join(lines).split("```bash\n", 1)[1].split("```", 1)[0].splitlines()


def test_the_readers_commands_run_from_the_bundles_directory_from_a_bare_machine() -> None:
    wheel = StagedEnvironment("scifact_harness-0.1.0-py3-none-any.whl", "environment/requirements.txt", None,
                              "{pip} install --no-deps --index-url " + TORCH_CPU_INDEX + " torch==2.13.0+cpu")
    own = _commands(reader_section(_receipt("mine"), {}, wheel, "inputs/archive/mine.zip"))
    assert own == ["python3.11 -m venv ../scifact-reader",
                   f"../scifact-reader/bin/pip install --no-deps --index-url {TORCH_CPU_INDEX} torch==2.13.0+cpu",
                   "../scifact-reader/bin/pip install -r environment/requirements.txt "
                   "environment/scifact_harness-0.1.0-py3-none-any.whl",
                   "../scifact-reader/bin/scifact-validate --bundle ."]  # the collection's archive is carried
    public = _commands(reader_section(_receipt("beir-scifact"), {}, wheel, None))
    assert public[-2:] == ["curl -L -o ../scifact.zip "
                           "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
                           "../scifact-reader/bin/scifact-validate --bundle . --archive ../scifact.zip"]
    clone = _commands(reader_section(_receipt("beir-scifact"), {}, StagedEnvironment(
        None, "environment/requirements.txt", "ab" * 20, None), None))
    assert f"git -C ../scifact-harness checkout {'ab' * 20}" in clone
    assert clone[-1] == "../scifact-harness/.venv/bin/scifact-validate --bundle . --archive ../scifact.zip"


def _corpus(declared: str) -> dict[str, Any]:
    return {"contract": {"name": "mine", "namespace": "mine"}, "source": {"archive_sha256": declared}}


def test_a_collection_of_ones_own_travels_with_its_archive_and_a_public_one_does_not(tmp_path: Path) -> None:
    archive = tmp_path / "mine.zip"
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("mine/corpus.jsonl", "{}\n")
    declared, out = sha256_file(archive), tmp_path / "out"
    out.mkdir()
    with pytest.raises(BundleError) as refused:
        stage_archive(tmp_path / "staging", out, _corpus(declared), None)
    assert str(refused.value) == (f"'mine' is a collection of your own, and the bundle carries its archive for its "
                                  f"reader; {out / 'locations.json'} does not place it (sha256 {declared}): pass "
                                  "--archive mine.zip, the zip its contract packed")
    other = tmp_path / "other.zip"
    other.write_bytes(b"not the archive")
    with pytest.raises(BundleError) as refused:
        stage_archive(tmp_path / "staging", out, _corpus(declared), other)
    assert str(refused.value) == (f"the archive {other} is not the one the fixture was built from (it declares "
                                  f"{declared}; this file is {sha256_file(other)}): pass --archive mine.zip, the zip "
                                  "its contract packed")
    with pytest.raises(BundleError) as refused:
        stage_archive(tmp_path / "staging", out, _corpus(declared), tmp_path)  # a directory: unreadable
    assert str(refused.value) == (f"the collection's archive {tmp_path} cannot be read (Is a directory): pass "
                                  "--archive mine.zip")
    record_locations(out, {ARCHIVES: {declared: str(archive)}})  # where `run` placed it
    staged = stage_archive(tmp_path / "staging", out, _corpus(declared), None)
    assert staged == tmp_path / "staging" / "inputs" / "archive" / "mine.zip"
    assert staged.read_bytes() == archive.read_bytes()
    public = {"contract": {"name": "beir-scifact", "namespace": "scifact"}, "source": {"archive_sha256": declared}}
    assert stage_archive(tmp_path / "staging-public", out, public, None) is None


def test_the_reader_is_told_what_each_command_installs_and_what_the_verdict_exits() -> None:
    wheel = StagedEnvironment("h.whl", "environment/requirements.txt", None, "{pip} install torch==2.13.0+cpu")
    own = reader_section(_receipt("mine"), {}, wheel, "inputs/archive/mine.zip")
    assert own[:3] == ["## Check it yourself", "", (
        "From a bare machine with Python 3.11 and a package index, in this bundle's directory, the reader installs "
        "torch as the runs had it (its CPU build from PyTorch's CPU index, never a CUDA build of several GB), then the "
        "harness wheel that made the runs (`environment/h.whl`) with the lock of the environment they ran in "
        "(`environment/requirements.txt`: every distribution at its version), then validates everything (the "
        "collection's archive is carried, `inputs/archive/mine.zip`: the collection is the publisher's own, "
        "identified by the digest its fixture declares), with these commands.")]
    assert own[-2:] == ["It exits 0 when every artifact is eligible, 1 when a check failed, 7 when something could "
                        "not be verified (nothing failed), and prints one verdict per artifact and one for the "
                        "bundle.", ""]
    clone = reader_section(_receipt("beir-scifact"), {"archive_is": "the public BEIR SciFact archive"},
                           StagedEnvironment(None, "environment/requirements.txt", "c0ffee", None), None)
    assert clone[2] == (
        "From a bare machine with Python 3.11 and a package index, in this bundle's directory, the reader installs a "
        "clone of the harness at the commit that made the runs (`c0ffee`; no wheel made them), set up as its README "
        "says (`environment/requirements.txt` locks the environment they ran in), then validates everything "
        "(`scifact.zip`: the public BEIR SciFact archive; any copy with the pinned content will do), with these "
        "commands.")
    assert _commands(clone)[:3] == ["git clone <the harness's repository> ../scifact-harness",
                                    "git -C ../scifact-harness checkout c0ffee", "make -C ../scifact-harness setup"]
    unknown = _commands(reader_section({**_receipt("mine"), "source": {"git": {"commit": "c0ffee"}}}, {"archive":
                                       "mine.zip"}, None, None))
    assert unknown[-2:] == ["# put the dataset's archive at ../mine.zip",
                            "../scifact-harness/.venv/bin/scifact-validate --bundle . --archive ../mine.zip"]


def test_the_archive_the_reader_names_comes_from_the_validators_pins_or_is_carried() -> None:
    assert reader_archive(_receipt("beir-scifact"), {}, None) == "scifact.zip"
    assert reader_archive(_receipt("beir-scifact"), {}, "inputs/archive/x.zip") is None
    assert reader_archive(_receipt("mine"), {"archive": "mine.zip"}, None) == "mine.zip"
    wheel = StagedEnvironment("h.whl", "environment/requirements.txt", None, None)
    lines = reader_section(_receipt("mine"), {"archive": "mine.zip"}, wheel, None)
    assert lines[3:5] == ["", "```bash"] and lines[-4:-2] == ["```", ""]
    assert "(`mine.zip`: the public archive; any copy with the pinned content will do)" in lines[2]
    without = _commands(reader_section(_receipt("beir-scifact"), {}, None, None))  # no environment staged
    assert f"git -C ../scifact-harness checkout {'ab' * 20}" in without

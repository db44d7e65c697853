"""The session's fixture: reused offline when one verifies in the work dir, else built; a missing corpus is one line."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.archives import TINY_DATASET, tiny_archive, tiny_contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.embedding.profiles import text_profile
from harness.errors import FixtureError, HarnessError
from harness.suite.session import fixture_name, locked_build

FIXTURE_NAME = fixture_name(TINY_DATASET)  # the tiny contract's fixture in the work dir

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.real_model


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/scifact.zip"


def test_a_built_fixture_is_reused_without_archive_or_network(tmp_path: Path, local_embedder: LocalEmbedder) -> None:
    contract = tiny_contract()
    built = locked_build(contract, work_dir=tmp_path, embedder=local_embedder, archive=tiny_archive(tmp_path / "t.zip"))
    before = (tmp_path / FIXTURE_NAME).read_bytes()
    reused = locked_build(contract, work_dir=tmp_path, embedder=local_embedder, archive=None, url=_closed_port_url())
    assert reused.fixture == built.fixture and reused.archive is None and reused.embedded == 0
    assert (tmp_path / FIXTURE_NAME).read_bytes() == before


def test_no_fixture_no_archive_and_no_network_is_one_clear_error(tmp_path: Path,
                                                                 local_embedder: LocalEmbedder) -> None:
    with pytest.raises(HarnessError) as raised:
        locked_build(tiny_contract(), work_dir=tmp_path, embedder=local_embedder, archive=None,
                     url=_closed_port_url())
    message = str(raised.value)
    assert "no archive given (--scifact-archive=PATH or SCIFACT_ARCHIVE)" in message
    assert f"no built fixture at {tmp_path / FIXTURE_NAME}" in message and "download failed" in message
    assert "\n" not in message


def test_a_fixture_built_for_another_profile_is_refused_by_name(tmp_path: Path,
                                                                local_embedder: LocalEmbedder) -> None:
    contract = tiny_contract()
    locked_build(contract, work_dir=tmp_path, embedder=local_embedder, archive=tiny_archive(tmp_path / "t.zip"))
    with pytest.raises(FixtureError, match=r"another text profile .* pass --scifact-archive=PATH"):
        locked_build(contract, work_dir=tmp_path, embedder=local_embedder, archive=None,
                     profile=text_profile("mteb-parity", contract))


def test_a_damaged_fixture_is_refused_not_reused(tmp_path: Path, local_embedder: LocalEmbedder) -> None:
    contract = tiny_contract()
    locked_build(contract, work_dir=tmp_path, embedder=local_embedder, archive=tiny_archive(tmp_path / "t.zip"))
    sidecar = tmp_path / json.loads((tmp_path / FIXTURE_NAME).read_text(encoding="utf-8"))["vectors"]["file"]
    data = bytearray(sidecar.read_bytes())
    data[0] ^= 1
    sidecar.write_bytes(bytes(data))
    with pytest.raises(FixtureError, match="vector sidecar"):
        locked_build(contract, work_dir=tmp_path, embedder=local_embedder, archive=None, url=_closed_port_url())


def test_the_session_without_archive_or_fixture_ends_in_one_line_not_a_traceback(tmp_path: Path) -> None:
    """As a user types it: `pytest -m heldout --scifact-spend-heldout --scifact-work-dir=...` with nothing built and
    no archive. This machine cannot reach the BEIR host, so the download fails; the error names what was looked for
    and how to supply it."""
    env = {k: v for k, v in os.environ.items() if k != "SCIFACT_ARCHIVE"}
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-m",
                             "heldout", "--scifact-spend-heldout", f"--scifact-work-dir={tmp_path}", "-q"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "no archive given (--scifact-archive=PATH or SCIFACT_ARCHIVE)" in output, output
    assert "Traceback" not in output and "urllib3" not in output, output

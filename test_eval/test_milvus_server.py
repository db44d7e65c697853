"""Milvus reached as a server, by URI: a real gRPC Milvus server on loopback (Milvus Lite's own server, started
here as a separate process), the same client path a Milvus Standalone or cluster takes. Nothing of the server's
storage is hashed: what the server says of the collection is recorded as attested, the token never leaves the
environment, and the rows equal those of the embedded engine."""

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.corpus.contract import Contract
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_text
from harness.modes import SEARCHED as MODES
from harness.systems.milvus import settings
from harness.validator.pipeline import validate

pytestmark = pytest.mark.extra("milvus")

GIT = {"source.git", "source.clean"}
TOKEN = "root:a-secret-that-must-not-be-recorded"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def milvus_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("milvus-server")
    port = _free_port()
    log = (root / "server.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(root / "data"),
                                "--host", "127.0.0.1", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"the Milvus server exited: {(root / 'server.log').read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the Milvus server did not listen within 120 s")
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=60)
        log.close()


@pytest.fixture(scope="module")
def server_token() -> Iterator[str]:
    """The token in the harness's environment for the module's tests: the system declares it, so its worker (and
    the validator's replay through the system) has it; the receipts bind its digest, never the token."""
    before = os.environ.get(settings.TOKEN_VARIABLE)
    os.environ[settings.TOKEN_VARIABLE] = TOKEN
    try:
        yield TOKEN
    finally:
        if before is None:
            del os.environ[settings.TOKEN_VARIABLE]
        else:
            os.environ[settings.TOKEN_VARIABLE] = before


@pytest.fixture(scope="module")
def server_runs(milvus_server: str, server_token: str, tiny_corpus: CorpusFixture, tiny: Contract,
                tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModeRun]:
    root = tmp_path_factory.mktemp("milvus-by-uri")
    runs = run_split(Evaluation(corpus=tiny_corpus.path, store_dir=root / "store", output_dir=root / "out",
                                split="calibration", system="milvus", system_options=(("uri", milvus_server),)), tiny)
    return {run.mode: run for run in runs}


def test_a_server_by_uri_is_attested_not_hashed_and_validates(server_runs: dict[str, ModeRun],
                                                              milvus_server: str, tiny_corpus: CorpusFixture) -> None:
    assert sorted(server_runs) == sorted(MODES)
    for mode, run in server_runs.items():
        receipt = run.aggregate["receipt"]
        engine = receipt["system"]["engine"]
        assert engine["name"] == "milvus-lite" and engine["version"].startswith("server milvus_lite-"), engine
        assert receipt["retrieval"]["config"]["deployment"] == f"server {milvus_server}"
        store = receipt["store"]
        assert store["parts"] == {}
        assert store["attested"]["server"] == milvus_server
        assert store["attested"]["row_count"] == len(json.loads(tiny_corpus.path.read_bytes())["documents"])
        assert receipt["system"]["environment"] == {settings.TOKEN_VARIABLE: sha256_text(TOKEN),
                                                    settings.URI_VARIABLE: None}
        root = run.aggregate_path.parent.parent
        for path in [p for p in root.rglob("*") if p.is_file()]:
            assert TOKEN.encode() not in path.read_bytes() and b"a-secret" not in path.read_bytes(), path
        report = validate(run.aggregate_path)
        problems = [c.line() for c in report.checks if c.status != "pass" and c.name not in GIT]
        assert not problems, "\n".join(problems)
        attested = {a.name for a in report.attestations}
        assert "system.attested" in attested
        assert ("replay.through_system" in attested) == (mode != "vector_only")


def test_the_server_answers_as_the_embedded_engine(server_runs: dict[str, ModeRun], tiny_corpus: CorpusFixture,
                                                   tiny: Contract, tmp_path: Path) -> None:
    embedded = {run.mode: run for run in run_split(Evaluation(
        corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out", split="calibration",
        system="milvus"), tiny)}
    for mode in MODES:
        served, local = (_rankings(server_runs[mode]), _rankings(embedded[mode]))
        assert served == local, mode


def _rankings(run: ModeRun) -> list[list[tuple[str, float]]]:
    rows = [json.loads(line) for line in run.rows_path.read_bytes().splitlines()]
    return [[(r["doc_id"], r["score"]) for r in row["results"]] for row in rows]

"""A build killed with SIGKILL mid-embedding resumes from its cache, and a torn cache tail is repaired.

The killed build runs in a child process against the fake Ollama server in this process, slowed to one
answer per DELAY seconds so there is time to watch its cache grow and kill it part way.
"""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive, tiny_contract
from fixtures.ollama_server import FakeOllama
from harness.embedding.embedders.ollama import OllamaEmbedder
from harness.fixture.build import BuildReport, build_fixture
from harness.fixture.corpus_fixture import load_fixture

ROOT = Path(__file__).resolve().parent.parent
TEXTS = 16  # 10 documents + 6 test queries
KILL_AT = 4  # complete cache records before the kill
DELAY = 0.15  # seconds per /api/embed answer while the child builds
CONTEXT_CHARS = 600  # refuses d09's 717-code-point prompt, so a retried record is among those resumed
POLL_SECONDS = 10.0

CHILD = """
import sys
from pathlib import Path

from fixtures.archives import tiny_contract
from harness.fixture.build import build_fixture
from harness.embedding.embedders.ollama import OllamaEmbedder

out, work_dir, host, archive = sys.argv[1:]
build_fixture(tiny_contract(), out=Path(out), work_dir=Path(work_dir), embedder=OllamaEmbedder(host=host),
              archive=Path(archive), progress=False)
"""


class CacheNotIncremental(AssertionError):
    """The server has answered more embed requests than the cache has records for (beyond the one in flight)."""


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(context_chars=CONTEXT_CHARS) as fake:
        yield fake


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return tiny_archive(tmp_path / "tiny.zip")


def build(server: FakeOllama, archive: Path, work_dir: Path) -> BuildReport:
    return build_fixture(tiny_contract(), out=work_dir / "fixture.json", work_dir=work_dir,
                         embedder=OllamaEmbedder(host=server.url), archive=archive, progress=False)


def cache_file(work_dir: Path) -> Path | None:
    found = sorted((work_dir / "embedding-cache").glob("*.jsonl"))
    assert len(found) <= 1, f"expected one embedding cache file, found {found}"
    return found[0] if found else None


def complete_records(work_dir: Path) -> int:
    path = cache_file(work_dir)
    return 0 if path is None else path.read_bytes().count(b"\n")


def prompt_shas(path: Path) -> list[str]:
    """The prompt digests of the complete records, ignoring a torn tail."""
    data = path.read_bytes()
    return [json.loads(line)["prompt_sha256"] for line in data[:data.rfind(b"\n") + 1].splitlines()]


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def kill_mid_embedding(server: FakeOllama, archive: Path, work_dir: Path, log: Path) -> int:
    """Run the build in a child, SIGKILL it once its cache holds KILL_AT records; return the records left."""
    command = [sys.executable, "-c", CHILD, str(work_dir / "fixture.json"), str(work_dir), server.url,
               str(archive)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OLLAMA_HOST", None)
    with log.open("wb") as output:
        child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + POLL_SECONDS
        while True:
            answered = server.embeds_answered  # read before the records: both only grow
            records = complete_records(work_dir)
            if answered - records > 2:
                raise CacheNotIncremental(
                    f"the server has answered {answered} /api/embed requests but the cache holds only {records} "
                    "records: the build does not write each vector to the cache as it is embedded, so a kill "
                    "now would lose more than the record being written")
            if records >= KILL_AT:
                break
            if child.poll() is not None:
                pytest.fail(f"the build exited (code {child.returncode}) with {records} cache records before it "
                            f"could be killed; its output:\n{log.read_text(errors='replace')}")
            if time.monotonic() > deadline:
                pytest.fail(f"after {POLL_SECONDS} s the cache holds {records} records (waiting for {KILL_AT}); "
                            f"the server answered {answered} embed requests; build output:\n"
                            f"{log.read_text(errors='replace')}")
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL, f"the build ended with {child.returncode}, not by SIGKILL"
    records = complete_records(work_dir)
    answered = server.embeds_answered
    assert 0 < records < TEXTS, f"killed with {records} of {TEXTS} records: not mid-embedding"
    assert answered - records <= 2, (f"killed after {answered} embed answers with {records} records cached: "
                                     "more was lost than the record being written")
    return records


def test_a_build_killed_mid_embedding_resumes_to_identical_vectors(
        tmp_path: Path, server: FakeOllama, archive: Path) -> None:
    reference_dir, work_dir = tmp_path / "reference", tmp_path / "work"
    reference = build(server, archive, reference_dir)
    reference_cache = cache_file(reference_dir)
    assert reference_cache is not None and reference.embedded == TEXTS

    server.clear()
    server.delay = DELAY
    before = kill_mid_embedding(server, archive, work_dir, tmp_path / "child.log")
    path = cache_file(work_dir)
    assert path is not None
    cached_before = prompt_shas(path)
    assert len(cached_before) == before
    assert not (work_dir / "fixture.json").exists()

    server.delay = 0.0
    server.clear()
    resumed = build(server, archive, work_dir)

    assert resumed.embedded == TEXTS - before
    assert resumed.from_cache == before
    final = prompt_shas(path)
    assert len(final) == TEXTS and len(set(final)) == TEXTS
    assert final[:before] == cached_before
    resent = {sha(text) for text in server.embed_inputs()}
    assert resent.isdisjoint(final[:before]), "the resumed build re-embedded a text that was already cached"
    # Records are deterministic and written in request order, so the whole cache matches the reference.
    assert path.read_bytes() == reference_cache.read_bytes()

    got, want = load_fixture(resumed.fixture), load_fixture(reference.fixture)
    assert got.document_vectors.tobytes() == want.document_vectors.tobytes()
    assert got.query_vectors.tobytes() == want.query_vectors.tobytes()
    assert got.data["embedding"]["retried_prompts"] == [{"text_id": "document:d09", "embedded_chars": 500}]
    assert resumed.fixture.read_bytes() == reference.fixture.read_bytes()


def test_a_stale_torn_record_after_a_finished_build_is_cut_and_nothing_re_embedded(
        tmp_path: Path, server: FakeOllama, archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work_dir = tmp_path / "work"
    first = build(server, archive, work_dir)
    path = cache_file(work_dir)
    assert path is not None
    complete = path.read_bytes()
    last = complete.splitlines()[-1]
    with path.open("ab") as handle:
        handle.write(last[:len(last) // 2])
    capsys.readouterr()

    server.clear()
    again = build(server, archive, work_dir)

    assert f"cut a torn final record of {len(last) // 2} bytes" in capsys.readouterr().err
    assert (again.embedded, again.from_cache, again.changed) == (0, TEXTS, False)
    assert server.embed_inputs() == []
    assert path.read_bytes() == complete
    assert again.fixture.read_bytes() == first.fixture.read_bytes()


def test_a_torn_final_record_is_cut_and_that_one_text_re_embedded(
        tmp_path: Path, server: FakeOllama, archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a kill during the last record's write leaves: every record intact but the last, cut part way."""
    work_dir = tmp_path / "work"
    first = build(server, archive, work_dir)
    fixture_bytes = first.fixture.read_bytes()
    path = cache_file(work_dir)
    assert path is not None
    complete = path.read_bytes()
    last = complete.splitlines()[-1]
    torn = complete[:len(complete) - len(last) - 1] + last[:len(last) // 2]
    path.write_bytes(torn)
    first.fixture.unlink()
    capsys.readouterr()

    server.clear()
    again = build(server, archive, work_dir)

    assert f"cut a torn final record of {len(last) // 2} bytes" in capsys.readouterr().err
    assert (again.embedded, again.from_cache) == (1, TEXTS - 1)
    assert [sha(text) for text in server.embed_inputs()] == [json.loads(last)["prompt_sha256"]]
    assert path.read_bytes() == complete
    assert again.fixture.read_bytes() == fixture_bytes

"""Downloads are bounded: in size (the pin, else the archive cap), in time (an overall deadline besides the idle
timeout), and in what they leave behind (a terminated download removes its partial; a second download never
removes a live one's)."""

import dataclasses
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
from fixtures.http_server import LoopbackServer, Route
from fixtures.interrupt import sigint_as_at_a_terminal
from fixtures.ollama_server import FakeOllama
from harness.corpus.deadline import deadline_seconds
from harness.corpus.download import download_archive, record_path
from harness.corpus.obtain import obtain_archive
from harness.corpus.partials import remove_stale_partials
from harness.errors import DownloadError, HarnessError

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = "/scifact.zip"

CHILD_DOWNLOAD = """
import sys
from pathlib import Path

from harness.corpus.download import download_archive

download_archive(sys.argv[1], Path(sys.argv[2]))
print("downloaded")
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return tiny_archive(tmp_path_factory.mktemp("served") / "tiny.zip").read_bytes()


@pytest.fixture
def server(served: bytes) -> Iterator[LoopbackServer]:
    routes = {
        ARCHIVE: Route(body=served),
        "/endless.zip": Route(body=served, endless=True),
        "/bigger.zip": Route(body=served + b"\0" * 4096),
        "/trickle.zip": Route(body=served, chunk_size=1, chunk_delay=0.2),
        "/slow.zip": Route(body=served, chunk_size=128, chunk_delay=0.25),
        # half sent, then held until released: a signal sent meanwhile provably arrives mid-transfer
        "/held.zip": Route(body=served, chunk_size=128, hold_after=len(served) // 2),
    }
    with LoopbackServer(routes) as running:
        yield running


def partials(dest: Path) -> list[Path]:
    return sorted(dest.parent.glob(f".{dest.name}.part-*")) if dest.parent.exists() else []


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def wait_for(condition: "object", seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def test_an_endless_body_stops_at_the_pinned_size(server: LoopbackServer, served: bytes, tmp_path: Path) -> None:
    dest = tmp_path / "download" / "scifact.zip"
    started = time.monotonic()
    with pytest.raises(DownloadError, match=rf"runs past {len(served)} bytes.*stopped after (\d+) bytes") as caught:
        download_archive(server.url("/endless.zip"), dest, expected_bytes=len(served), expected_md5=md5(served))
    assert time.monotonic() - started < 5.0
    written = int(str(caught.value).split("stopped after ")[1].split(" ")[0])
    assert written <= len(served)  # the byte past the pin was never written
    assert not dest.exists() and partials(dest) == []


def test_an_unpinned_endless_body_stops_at_the_archive_cap(server: LoopbackServer, tmp_path: Path) -> None:
    contract = tiny_contract()
    cap = contract.limits.max_archive_bytes
    with pytest.raises(DownloadError, match=f"runs past {cap} bytes"):
        obtain_archive(contract, tmp_path, None, server.url("/endless.zip"), deadline=30.0)
    assert partials(tmp_path / "download" / "scifact.zip") == []


def test_an_announced_length_beyond_the_pin_is_refused_before_the_body(server: LoopbackServer, served: bytes,
                                                                       tmp_path: Path) -> None:
    dest = tmp_path / "scifact.zip"
    with pytest.raises(DownloadError, match=f"announces {len(served) + 4096} bytes, more than the {len(served)}"):
        download_archive(server.url("/bigger.zip"), dest, expected_bytes=len(served), expected_md5=md5(served))
    assert not dest.exists() and partials(dest) == []


def test_a_trickling_body_meets_the_overall_deadline(server: LoopbackServer, tmp_path: Path) -> None:
    """One byte every 0.2 s never trips the idle timeout; the deadline ends it."""
    dest = tmp_path / "scifact.zip"
    started = time.monotonic()
    with pytest.raises(DownloadError, match=r"not complete after the 1 s deadline \(\d+ bytes so far\)"):
        download_archive(server.url("/trickle.zip"), dest, timeout=(2.0, 5.0), deadline=1.0)
    assert 1.0 <= time.monotonic() - started < 4.0
    assert not dest.exists() and partials(dest) == []


def test_the_deadline_is_configurable_and_recorded(server: LoopbackServer, served: bytes, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCIFACT_DOWNLOAD_DEADLINE", "42")
    assert deadline_seconds() == 42.0
    assert deadline_seconds("7.5") == 7.5
    for wrong in ("soon", "0", "-3", "inf", "nan"):
        with pytest.raises(HarnessError, match="not a positive number of seconds"):
            deadline_seconds(wrong)
    contract = dataclasses.replace(tiny_contract(), source_url=server.url(ARCHIVE), source_archive_bytes=len(served),
                                   source_archive_md5=md5(served))
    archive = obtain_archive(contract, tmp_path, None, None)
    record = json.loads(record_path(archive.path).read_text(encoding="utf-8"))
    assert record["deadline_seconds"] == 42.0 and record["idle_timeout_seconds"] == 60.0
    assert (record["url"], record["bytes"], record["md5"], record["max_bytes"]) == (
        server.url(ARCHIVE), len(served), md5(served), len(served))


def test_sigterm_mid_download_removes_the_partial(server: LoopbackServer, tmp_path: Path) -> None:
    dest = tmp_path / "scifact.zip"
    server.hold()
    child = subprocess.Popen([sys.executable, "-c", CHILD_DOWNLOAD, server.url("/held.zip"), str(dest)], cwd=ROOT,
                             env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: server.holding() and bool(partials(dest)))  # mid-transfer, whatever the load
        child.send_signal(signal.SIGTERM)
        _, stderr = child.communicate(timeout=10)
    finally:
        child.kill()
    assert child.returncode != 0 and "Terminated" in stderr
    assert not dest.exists() and partials(dest) == []


def test_a_second_download_leaves_the_first_ones_live_partial_alone(server: LoopbackServer, served: bytes,
                                                                    tmp_path: Path) -> None:
    """Before: the second download's clean-up deleted the first's .part and the first died of FileNotFoundError."""
    dest = tmp_path / "scifact.zip"
    server.hold()
    first = subprocess.Popen([sys.executable, "-c", CHILD_DOWNLOAD, server.url("/held.zip"), str(dest)], cwd=ROOT,
                             env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: server.holding() and bool(partials(dest)))  # the first is mid-transfer until released
        live = partials(dest)
        assert remove_stale_partials(dest) == [] and partials(dest) == live
        download_archive(server.url(ARCHIVE), dest)  # a whole second download beside the live one
        assert partials(dest) == live
        server.release()
        stdout, stderr = first.communicate(timeout=30)
    finally:
        first.kill()
    assert first.returncode == 0, stderr
    assert stdout.strip() == "downloaded"
    assert dest.read_bytes() == served and partials(dest) == []


def test_a_killed_downloads_partial_is_removed_by_the_next_download(server: LoopbackServer, served: bytes,
                                                                    tmp_path: Path) -> None:
    dest = tmp_path / "scifact.zip"
    child = subprocess.Popen([sys.executable, "-c", CHILD_DOWNLOAD, server.url("/slow.zip"), str(dest)], cwd=ROOT,
                             env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: bool(partials(dest)))
    finally:
        child.kill()
        child.wait(timeout=10)
    [orphan] = partials(dest)
    download_archive(server.url(ARCHIVE), dest)
    assert not orphan.exists() and dest.read_bytes() == served


def test_two_cli_builds_in_one_work_dir_take_turns(server: LoopbackServer, served: bytes, tmp_path: Path) -> None:
    """Before: CLI builds took no lock, so two at once downloaded side by side into one directory."""
    work = tmp_path / "work"
    argv = [sys.executable, "-m", "fixtures.tiny_cli", "build", "--out", str(tmp_path / "fixture.json"), "--work-dir",
            str(work), "--embedder", "ollama", "--no-progress"]
    waiting = f"waiting for another build in the work directory {work}"
    server.hold()
    with FakeOllama() as ollama:
        env = {**child_env(), "TINY_SOURCE_URL": server.url("/held.zip"), "TINY_SOURCE_BYTES": str(len(served)),
               "TINY_SOURCE_MD5": md5(served), "OLLAMA_HOST": ollama.url}
        env.pop("SCIFACT_ARCHIVE", None)
        logs = [tmp_path / "first.err", tmp_path / "second.err"]
        builds: list[subprocess.Popen[str]] = []
        try:
            for log in logs:  # the second starts while the first is mid-download, and waits its turn
                with log.open("w") as stderr:
                    builds.append(subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=stderr,
                                                   text=True))
                wait_for(server.holding if log == logs[0] else lambda: waiting in logs[1].read_text())
            server.release()
            results = [(build.communicate(timeout=120)[0], log.read_text(), build.returncode)
                       for build, log in zip(builds, logs, strict=True)]
        finally:
            server.release()
            for build in builds:
                build.kill()
    assert [code for _, _, code in results] == [0, 0], results
    assert server.paths().count("/held.zip") == 1  # the second found the first's download and reused it
    assert [waiting in err for _, err, _ in results] == [False, True], results
    download = work / "download" / "held.zip"  # the download keeps the URL's file name
    assert download.is_file() and partials(download) == []


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_cli_build_stopped_mid_download_exits_with_its_code_and_keeps_nothing(server: LoopbackServer,
                                                                               served: bytes, tmp_path: Path,
                                                                               signum: int, code: int) -> None:
    work = tmp_path / "work"
    server.hold()
    env = {**child_env(), "TINY_SOURCE_URL": server.url("/held.zip"), "TINY_SOURCE_BYTES": str(len(served)),
           "TINY_SOURCE_MD5": md5(served)}
    env.pop("SCIFACT_ARCHIVE", None)
    build = subprocess.Popen([sys.executable, "-m", "fixtures.tiny_cli", "build", "--out", str(tmp_path / "f.json"),
                              "--work-dir", str(work), "--embedder", "ollama", "--no-progress"], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=sigint_as_at_a_terminal)
    dest = work / "download" / "held.zip"  # the download keeps the URL's file name
    try:
        # the server has sent the first half and holds the rest: the transfer is mid-way, whatever the load
        wait_for(lambda: server.holding() and bool(partials(dest)))
        build.send_signal(signum)
        _, stderr = build.communicate(timeout=30)
    finally:
        build.kill()
        server.release()
    assert build.returncode == code, stderr
    assert stderr.strip().splitlines() == [stderr.strip()] and "partial files were removed" in stderr, stderr
    assert "Traceback" not in stderr and not dest.exists() and partials(dest) == []

"""Where `make setup` takes torch from (scripts/torch_index.py): PyTorch's CPU index when it lists torch, the
configured index otherwise, said on stderr; against a real loopback index and a closed port."""

import socket
import subprocess
import sys
from pathlib import Path

from fixtures.http_server import LoopbackServer, Route

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "torch_index.py"


def _choose(index: str) -> tuple[str, str]:
    done = subprocess.run([sys.executable, str(SCRIPT), index], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip(), done.stderr.strip()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_index_that_lists_torch_is_used() -> None:
    with LoopbackServer({"/simple/torch/": Route(body=b"<a href='torch-2.13.0+cpu.whl'>torch</a>")}) as index:
        arguments, said = _choose(index.url("/simple"))
        assert arguments == f"--index-url {index.url('/simple')}"
        assert said == f"torch: from {index.url('/simple')}"
        assert index.paths() == ["/simple/torch/"]


def test_an_unreachable_index_falls_back_to_the_configured_one_and_says_so() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/whl/cpu"
    arguments, said = _choose(url)
    assert arguments == ""
    assert said.startswith(f"torch: {url} is unreachable (") and "installing from the configured index" in said


def test_an_index_without_torch_falls_back() -> None:
    with LoopbackServer({}) as index:
        arguments, said = _choose(index.url("/whl/cpu"))
    assert arguments == "", arguments
    assert f"{index.url('/whl/cpu/torch/')}: HTTP 404 Not Found" in said and "configured index" in said, said


def test_make_setup_installs_torch_with_the_script_s_arguments() -> None:
    recipe = subprocess.run(["make", "-n", "-B", "setup", "VENV=/nonexistent-venv"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, check=True).stdout
    torch_line = next(line for line in recipe.splitlines() if "torch==2.13.0" in line and "pip install" in line)
    assert "scripts/torch_index.py https://download.pytorch.org/whl/cpu" in torch_line
    assert "local,examples,report,test" in recipe and "milvus" not in recipe

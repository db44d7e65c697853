"""scripts/install_into.py, the one command that installs the harness into another repository's venv: refused, with
the fix, outside a venv and for a wheel that is not there; nothing is installed then. Its whole path (torch, the
wheel, the flow after it) is .ci/outside's."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "install_into.py"


def _run(python: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, str(SCRIPT), *argv], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


def test_outside_a_venv_it_says_which_interpreter_to_use(tmp_path: Path) -> None:
    base = subprocess.run([sys.executable, "-c", "import sys; print(sys.base_prefix)"], capture_output=True,
                          text=True, check=True).stdout.strip()
    python = next(p for p in (Path(base) / "bin" / "python3", Path(base) / "bin" / "python") if p.exists())
    done = _run(str(python), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "is not a virtual environment's interpreter" in done.stderr and "python -m venv .venv" in done.stderr


def test_a_missing_wheel_is_named_with_how_to_build_it(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    done = _run(str(venv / "bin" / "python"), "--wheel", "dist/nothing.whl", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "--wheel dist/nothing.whl does not exist" in done.stderr and "make dist" in done.stderr
    assert "pip" not in done.stderr.split("make dist")[0], "pip ran before the wheel was checked"

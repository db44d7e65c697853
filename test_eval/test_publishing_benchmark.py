"""The publishing benchmark times the README's block step by step: its steps are the block's numbered steps, and
together they are the whole block; it refuses to run without --spend-heldout or over an existing evaluation."""

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.publishing import documented_block, documented_steps
from test_eval.test_documented_path import commands

ROOT = Path(__file__).resolve().parent.parent


def test_the_steps_are_the_documented_block_in_order() -> None:
    steps = documented_steps(ROOT / "README.md")
    assert [title.split(".")[0] for title, _ in steps] == [str(n) for n in range(1, len(steps) + 1)]
    assert len(steps) >= 8
    assert [line for _, script in steps for line in commands(script)] == commands(documented_block(ROOT / "README.md"))


@pytest.mark.parametrize(("page", "problem"), [
    ("no markers\n", "exactly once"),
    ("<!-- documented-path:start -->\n```bash\nls\n```\n<!-- documented-path:end -->\n"
     "<!-- documented-path:end -->\n", "exactly once"),
    ("<!-- documented-path:start -->\nls\n<!-- documented-path:end -->\n", "no single ```bash block")])
def test_a_page_without_one_marked_block_is_named(tmp_path: Path, page: str, problem: str) -> None:
    path = tmp_path / "README.md"
    path.write_text(page, encoding="utf-8")
    with pytest.raises(ValueError, match=problem):
        documented_block(path)


def test_it_refuses_without_spending_the_heldout_split() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.publishing"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2 and "--spend-heldout" in done.stderr, done.stderr

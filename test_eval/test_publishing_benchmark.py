"""The publishing benchmark times the README's block step by step: its steps are the block's numbered steps, and
together they are the whole block; it refuses to run without --spend-heldout or over an existing evaluation."""

import subprocess
import sys
from pathlib import Path

from benchmarks.publishing import documented_steps
from test_eval.test_documented_path import commands, documented_block

ROOT = Path(__file__).resolve().parent.parent


def test_the_steps_are_the_documented_block_in_order() -> None:
    steps = documented_steps(ROOT / "README.md")
    assert [title.split(".")[0] for title, _ in steps] == [str(n) for n in range(1, len(steps) + 1)]
    assert len(steps) >= 8
    assert [line for _, script in steps for line in commands(script)] == commands(documented_block())


def test_it_refuses_without_spending_the_heldout_split() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.publishing"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2 and "--spend-heldout" in done.stderr, done.stderr

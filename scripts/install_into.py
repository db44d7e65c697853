"""Install the harness into the virtual environment that runs this script, the usual way (not editable): the CPU
build of torch from PyTorch's index when it answers (else the configured index, saying so), then the harness from
this clone or from a built wheel, with the extras asked for and every package held to the clone's constraints.txt.
Run it with your own repository's interpreter:

    .venv/bin/python /path/to/scifact-harness/scripts/install_into.py [--wheel dist/scifact_harness-*.whl]

Standard library only: it runs before the environment holds anything of the harness's.
"""

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from torch_index import DEFAULT_INDEX, pip_arguments

CLONE = Path(__file__).resolve().parents[1]
TORCH = "torch==2.13.0"
EXTRAS = "local,report"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="install_into.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, help="a wheel built by `make dist` (default: this clone's source)")
    parser.add_argument("--extras", default=EXTRAS, help=f"the extras to install (default: {EXTRAS})")
    parser.add_argument("--torch-index", default=DEFAULT_INDEX, help="where torch comes from ('' for the configured "
                                                                     f"index; default: {DEFAULT_INDEX})")
    return parser


def _pip(*arguments: str) -> None:
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", *arguments]
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True)


def main(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    if sys.prefix == sys.base_prefix:
        print(f"{sys.executable} is not a virtual environment's interpreter: run this script with your repository's "
              "venv (python -m venv .venv, then .venv/bin/python .../install_into.py)", file=sys.stderr)
        return 2
    source = options.wheel or CLONE
    if not source.exists():
        print(f"--wheel {source} does not exist: build it with `make dist` in the clone (it writes dist/)",
              file=sys.stderr)
        return 2
    constraints = str(CLONE / "constraints.txt")
    index, sentence = pip_arguments(options.torch_index)
    print(sentence, file=sys.stderr)
    try:
        _pip("-c", constraints, *index, TORCH)
        _pip("-c", constraints, f"{source.resolve()}[{options.extras}]" if options.extras else str(source.resolve()))
    except subprocess.CalledProcessError as error:
        print(f"pip failed (exit {error.returncode}): its message is above", file=sys.stderr)
        return 4
    print(f"installed: {sys.prefix}/bin/scifact-harness, scifact-validate and the pytest plugin scifact_harness",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The `new-system NAME` subcommand: a working system of your own and tests of your own, written into a directory
(both files or neither, never over a file that exists), then what to add and run next, printed, never edited in."""

import argparse
import importlib.util
import keyword
import os
import re
import sys
from pathlib import Path

from harness.atomic import create_all_atomic
from harness.cli.parsing import paths as cli_paths
from harness.cli.parsing import subcommands
from harness.cli.parsing.paths import path_argument, text_argument
from harness.cli.scaffold.skeleton import Skeleton
from harness.errors import HarnessError, RefusedError
from harness.typed_commands import command, shown, tool

CONFIGURATIONS = ("pyproject.toml", "pytest.ini")  # a file that makes a directory pytest's rootdir
IGNORED = ("work-dir/", "__pycache__/", ".pytest_cache/", ".venv/")  # .venv/: a venv inside the repository


class SystemNameError(HarnessError):
    """NAME cannot be a system's module."""


def add_parser(commands: subcommands.Commands) -> None:
    parser = subcommands.command(commands, "new-system",
                                 "write a working system of your own (NAME.py) and tests of your own (test_NAME.py)")
    parser.add_argument("name", type=text_argument, metavar="NAME",
                        help="the system's module name, a Python identifier (my_search): --scifact-system=NAME:SYSTEM")
    parser.add_argument("--directory", type=path_argument, default=None, metavar="DIR",
                        help="where to write the two files (default: the current directory; created if missing)")


def suggested(name: str) -> str:
    """A module name close to `name` that new-system accepts."""
    words = [word for word in re.split(r"[^0-9A-Za-z]+", name) if word]
    module = "_".join(words).lower() or "my_system"
    module = f"system_{module}" if module[0].isdigit() or keyword.iskeyword(module) else module
    return f"my_{module}" if module.startswith("test_") or module.endswith("_test") else module


def check_name(name: str, directory: Path) -> None:
    """NAME is the module `--scifact-system=NAME:SYSTEM` imports: an ASCII identifier, no keyword, no module the
    interpreter already finds, and no file pytest would collect as tests."""
    fix = f"choose another NAME, e.g. `new-system {suggested(name)}`"
    if keyword.iskeyword(name):
        raise SystemNameError(f"new-system: {name!r} is a Python keyword, which no import can name; {fix}")
    if not (name.isascii() and name.isidentifier()):
        raise SystemNameError(f"new-system: {name!r} is not a Python module name: NAME becomes {name}.py, imported as "
                              f"--scifact-system={name}:SYSTEM, so use ASCII letters, digits and underscores, not "
                              f"starting with a digit; {fix}")
    if len(name) > 100:
        raise SystemNameError(f"new-system: {name!r} is {len(name)} characters long, over 100: a system's name is "
                              f"one line of at most 200; {fix}")
    if name.startswith("test_") or name.endswith("_test"):
        raise SystemNameError(f"new-system: pytest collects {name}.py as a file of tests (test_*.py, *_test.py), not "
                              f"a system; {fix}")
    found = _importable_elsewhere(name, directory)
    if found:
        raise SystemNameError(f"new-system: a module {name!r} exists already ({found}), and {name}.py would hide it "
                              f"from the system's imports or the reverse; choose another NAME, e.g. "
                              f"`new-system my_{name}`")


def _importable_elsewhere(name: str, directory: Path) -> str:
    """Where the interpreter already finds a module `name`, outside `directory`; "" when it finds none there."""
    if name in sys.stdlib_module_names:
        return "the standard library"
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return ""
    if spec is None:
        return ""
    if spec.origin in (None, "built-in", "frozen") and not spec.submodule_search_locations:
        return "built into the interpreter"
    places = [spec.origin] if spec.origin not in (None, "built-in", "frozen") else list(
        spec.submodule_search_locations or ())
    outside = [place for place in places if place and Path(place).resolve().parent != directory.resolve()
               and Path(place).resolve() != directory.resolve() / name]
    return shown(outside[0]) if outside else ""  # NAME.py in the directory itself is refused below, by name


def run(args: argparse.Namespace) -> int:
    directory: Path = args.directory or Path(os.path.abspath(Path.cwd()))
    cli_paths.directory("--directory", directory)
    check_name(args.name, directory)
    skeleton = Skeleton(args.name)
    files = {directory / name: text.encode("utf-8") for name, text in skeleton.files().items()}
    existing = [shown(path) for path in files if path.exists() or path.is_symlink()]
    if existing:
        raise _exists(existing)
    directory.mkdir(parents=True, exist_ok=True)
    try:
        create_all_atomic(files)
    except FileExistsError as exc:  # created by another process since the check above
        raise _exists([shown(str(exc.filename2 or exc.filename))]) from None
    print(next_steps(skeleton, directory))
    return 0


def _exists(paths: list[str]) -> RefusedError:
    return RefusedError(f"new-system: {' and '.join(paths)} already {'exists' if len(paths) == 1 else 'exist'}; "
                        "nothing was written: move them away, or choose another NAME or --directory")


def pyproject_lines(skeleton: Skeleton) -> str:
    return (f'[project]\nname = "{skeleton.system_name}"\nversion = "0.1.0"\n\n'
            '[tool.pytest.ini_options]\naddopts = ["-p", "scifact_harness"]\n')


def next_steps(skeleton: Skeleton, directory: Path) -> str:
    """What was written, then what to add (printed for the user to add, never written) and the commands to run."""
    module = skeleton.module
    here = Path(os.path.abspath(Path.cwd())) == directory
    pytest = tool("pytest", absolute=not here)  # after a `cd`, a path relative to here would name nothing
    system = f"--scifact-system={module}:SYSTEM"
    own_tests = command(*pytest, "-p", "scifact_harness", system, f"test_{module}.py")
    calibration = command(*pytest, "-p", "scifact_harness", "-m", "calibration", system)
    where = "this directory" if here else shown(directory)
    config = [name for name in CONFIGURATIONS if (directory / name).is_file()]

    def indented(text: str) -> str:
        return "\n".join(f"    {line}" if line else "" for line in text.splitlines())

    rootdir = (f"1. {where} holds {config[0]}, so pytest takes it as its rootdir, where the suite finds {module}.py."
               if config else
               f"1. pytest finds your system in its rootdir, the directory of its configuration: {where} holds none, "
               f"so add a pyproject.toml there holding at least\n{indented(pyproject_lines(skeleton))}")
    return "\n".join([
        f"wrote {shown(directory / f'{module}.py')} (SYSTEM: exact inner product over the fixture's vectors, a working "
        f"baseline: replace its search with yours) and {shown(directory / f'test_{module}.py')} (tests of your own, on "
        "the suite's fixtures)",
        "",
        "next:",
        rootdir,
        "2. keep what the suite writes out of git (a freeze refuses a work tree with changes): add to .gitignore",
        indented("\n".join(IGNORED)),
        f"3. your tests, then the calibration, from {where} (the fixture is built in work-dir/ there, from a local "
        "BEIR scifact.zip given as --scifact-archive=PATH or $SCIFACT_ARCHIVE, else downloaded):",
        *([] if here else [indented(command("cd", directory))]),
        indented(own_tests),
        indented(calibration),
        "4. commit: the calibration's last line prints the freeze, then the held-out run follows it",
    ])

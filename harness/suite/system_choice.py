"""What a session is asked to evaluate, checked before any work: that pytest read its own command line as the user
meant it, and that the system under test can be found and loaded. Each problem ends the session in one line that
names the option as typed and the fix (pytest's usage error), never after minutes of fixture and store work."""

import inspect
from pathlib import Path
from typing import Any

import pytest

from harness.cli.summary import SystemChoice
from harness.errors import HarnessError
from harness.suite import options

CHOICE = pytest.StashKey[SystemChoice]()
LOADED = pytest.StashKey[str]()  # the system's name, version and modes, as its worker loaded it


def _expected_rootdir(config: pytest.Config) -> Path | None:
    """The rootdir pytest would choose from the test paths alone; None when that cannot be told (pytest's internals
    moved), in which case nothing is refused."""
    try:
        from _pytest.config.findpaths import determine_setup

        paths = [str(a) for a in config.option.file_or_dir or []]
        wanted: dict[str, Any] = {"inifile": None, "override_ini": None, "args": paths, "rootdir_cmd_arg": None,
                                  "invocation_dir": config.invocation_params.dir}
        accepted = inspect.signature(determine_setup).parameters
        rootdir = determine_setup(**{key: value for key, value in wanted.items() if key in accepted})[0]
    except Exception:
        return None
    return Path(rootdir)


def check_rootdir(config: pytest.Config) -> None:
    """pytest chooses its rootdir and configuration file before it loads plugins, so the value of a --scifact-*
    option written after a space (`--scifact-work-dir DIR`) is taken for a test path there: the user's own
    pyproject.toml or pytest.ini is then not read. Refused when it changed the rootdir."""
    if config.getoption("rootdir", None) or config.getoption("inifilename", None):
        return
    args = [str(a) for a in config.invocation_params.args]
    spaced = [(args[i], args[i + 1]) for i in range(len(args) - 1)
              if args[i] in options.VALUED and (config.invocation_params.dir / args[i + 1]).exists()]
    if not spaced:
        return
    expected = _expected_rootdir(config)
    if expected is not None and expected.resolve() != config.rootpath.resolve():
        option, value = spaced[0]
        raise pytest.UsageError(
            f"pytest took the value of {option} ({value}) for a test path when it chose its rootdir "
            f"({config.rootpath}, not {expected}), since it reads the command line before a plugin's options are "
            f"known: write {option}={value}, with '='")


def choose_system(config: pytest.Config, *, load: bool) -> SystemChoice:
    """The system under test and the directory its module is imported from (--scifact-system-path, else pytest's
    rootdir, when the interpreter's path does not hold it). With `load`, the system is also loaded once in a
    worker process, so a spec naming no usable system fails here."""
    from harness.systems.plugin.location import locate

    spec = config.getoption(options.SYSTEM)
    given = [Path(p) for p in config.getoption(options.SYSTEM_PATH)]
    missing = [str(p) for p in given if not (config.invocation_params.dir / p).is_dir()]
    if missing:
        raise pytest.UsageError(f"{options.SYSTEM_PATH}={missing[0]} is not a directory: name the directory that "
                                "holds the system's module")
    candidates = [(config.invocation_params.dir / p).resolve() for p in given] or [config.rootpath]
    overrides = options.given_path(config, options.CONFIG)
    if overrides is not None and spec != "builtin":
        raise pytest.UsageError(f"{options.CONFIG} sets the built-in system's parameters; {spec!r} takes its "
                                f"configuration from its own code (its options and files): leave {options.CONFIG} out")
    try:
        if overrides is not None:
            options.search_config(config)  # each bad override named before any work
        choice = SystemChoice(spec, locate(spec, candidates, options.SYSTEM, f"{options.SYSTEM_PATH}=DIR"), overrides)
        if load and choice.spec != "builtin":  # the built-in system's modules are imported when a test needs them
            from harness.systems.builtin.config.search_config import SearchConfig
            from harness.systems.plugin.builder import PluginBuilder
            from harness.systems.registry.select import make_builder
            from harness.systems.registry.store_owner import OwnedStore

            uri = config.getoption(options.MILVUS_URI)
            builder = make_builder(options.session_contract(config).namespace, SearchConfig(), spec,
                                   {"uri": uri} if uri else None, directory=choice.directory, option=options.SYSTEM)
            builder.close()
            inner = builder.inner if isinstance(builder, OwnedStore) else builder
            if isinstance(inner, PluginBuilder):
                loaded = inner.loaded
                config.stash[LOADED] = f"{loaded.name} {loaded.version}, modes {', '.join(loaded.modes)}"
    except HarnessError as exc:
        raise pytest.UsageError(str(exc)) from None
    return choice


def header(config: pytest.Config) -> str:
    """The report header's line: which system the session evaluates, and from where."""
    choice = config.stash[CHOICE]
    loaded = config.stash.get(LOADED, None)
    where = f"; module from {choice.directory}" if choice.directory is not None else ""
    return f"scifact-harness: system under test {choice.spec}{f' ({loaded})' if loaded else ''}{where}"

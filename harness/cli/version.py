"""`--version`: the distribution's version and the digest of the harness source a receipt would bind."""

import argparse
from collections.abc import Sequence
from importlib import metadata
from typing import Any, NoReturn

from harness.source_digest import harness_digest

DISTRIBUTION = "scifact-harness"


def version_line() -> str:
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        version = "not installed as a distribution"
    return f"{DISTRIBUTION} {version} (harness source {harness_digest()['sha256']})"


class VersionAction(argparse.Action):
    """Prints the version line and exits 0, like argparse's own "version" action but computed only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> NoReturn:
        print(version_line())
        parser.exit(0)

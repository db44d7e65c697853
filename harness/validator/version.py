"""`--version`: the distribution's version and the digest of the validator's own source (its modules, pins and the
schemas it reads), so a verdict can be tied to the validator that gave it."""

import argparse
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

from .core.digests import sha256_canonical, sha256_file

VALIDATOR_DIR = Path(__file__).resolve().parent
SCHEMAS_DIR = VALIDATOR_DIR.parent / "schemas"


def validator_source_digest() -> str:
    """sha256 of canonical JSON {relative path: sha256} over harness/validator/**/*.py and *.json, and
    harness/schemas/*.json."""
    files = [p for p in VALIDATOR_DIR.rglob("*") if p.is_file() and p.suffix in {".py", ".json"}
             and "__pycache__" not in p.parts] + sorted(SCHEMAS_DIR.glob("*.json"))
    return sha256_canonical({p.relative_to(VALIDATOR_DIR.parent.parent).as_posix(): sha256_file(p)
                             for p in sorted(files)})


def version_line() -> str:
    try:
        version = metadata.version("scifact-harness")
    except metadata.PackageNotFoundError:
        version = "not installed as a distribution"
    return f"scifact-validate {version} (validator source {validator_source_digest()})"


class VersionAction(argparse.Action):
    """Prints the version line and exits 0, computed only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> NoReturn:
        print(version_line())
        parser.exit(0)

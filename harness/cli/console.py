"""The `scifact-harness` console script: `python -m harness` under its installed name."""

import sys

from harness.cli.app import main


def console() -> None:
    sys.exit(main())

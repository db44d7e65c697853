"""A hypothesis declared at the freeze: this freeze's system in one mode against another frozen run in one mode.

`freeze --hypothesis "hybrid > fts_only" --hypothesis-baseline DIR` records, in the freeze record (and so in the
digest every held-out receipt names), which arms are compared, on which metric, in which direction, by which test
and at which alpha. The baseline is named by its own freeze record's digest, read from DIR/freeze.json, which must be
a freeze of the same fixture. See docs/comparing-systems.md for how a comparison reads it.
"""

import re
from pathlib import Path
from typing import Any

from harness.errors import RefusedError
from harness.evaluation.gates.hypothesis_terms import (
    METRICS,
    TESTS,
    HypothesisError,
    HypothesisRequest,
)
from harness.hashing import sha256_canonical
from harness.json_input import read_document
from harness.modes import MODES

DIRECTIONS = {">": "a_greater", "<": "a_less", "!=": "two_sided"}
_STATEMENT = re.compile(r"\s*(\w+)\s*(>|<|!=)\s*(\w+)\s*")
FORM = ('"A > B", "A < B" or "A != B", A a mode of this system and B a mode of the baseline run, for example '
        '"hybrid > fts_only"')


class HypothesisRefused(RefusedError):
    """The baseline run a hypothesis names cannot be used: no freeze, another fixture, a mode it did not freeze."""


def parse_statement(statement: str) -> tuple[str, str, str]:
    """(a mode, direction, b mode) of `statement`, or a HypothesisError naming the form it takes."""
    found = _STATEMENT.fullmatch(statement)
    if found is None:
        raise HypothesisError(f"--hypothesis {statement!r}: write {FORM}")
    a, arrow, b = found.groups()
    for mode in (a, b):
        if mode not in MODES:
            raise HypothesisError(f"--hypothesis {statement!r}: {mode!r} is not a mode ({', '.join(MODES)})")
    return a, DIRECTIONS[arrow], b


def _baseline_record(directory: Path) -> dict[str, Any]:
    path = directory / "freeze.json"
    if not path.is_file():
        raise HypothesisRefused(f"--hypothesis-baseline {directory}: no freeze.json there. Freeze the baseline run "
                                "first (python -m harness freeze ... --output-dir DIR), then declare the hypothesis")
    record = read_document(path, "freeze record", "freeze", "freeze the baseline again", HypothesisRefused)
    if sha256_canonical({k: v for k, v in record.items() if k != "freeze_sha256"}) != record["freeze_sha256"]:
        raise HypothesisRefused(f"{path} does not match its own freeze_sha256: it was edited after freezing; "
                                "name an intact freeze")
    return record


def declaration(request: HypothesisRequest, *, modes: tuple[str, ...], fixture_sha256: str) -> dict[str, Any]:
    """The freeze record's `hypothesis` field, or an error naming what is wrong and the fix."""
    a, direction, b = parse_statement(request.statement)
    if request.metric not in METRICS:
        raise HypothesisError(f"--hypothesis-metric {request.metric!r}: one of {', '.join(METRICS)}")
    if request.test not in TESTS:
        raise HypothesisError(f"--hypothesis-test {request.test!r}: one of {', '.join(TESTS)}")
    if not 0 < request.alpha <= 0.5:
        raise HypothesisError(f"--hypothesis-alpha {request.alpha}: above 0 and at most 0.5")
    if a not in modes:
        raise HypothesisError(f"--hypothesis {request.statement!r}: this freeze holds {', '.join(modes)}, not {a}; "
                              "declare a mode you freeze")
    baseline = _baseline_record(request.baseline_dir)
    if baseline["corpus"]["fixture_sha256"] != fixture_sha256:
        raise HypothesisRefused(f"--hypothesis-baseline {request.baseline_dir}: frozen on fixture "
                                f"{baseline['corpus']['fixture_sha256']}, this freeze on {fixture_sha256}; a "
                                "comparison pairs runs of one fixture: evaluate the baseline on this fixture")
    if b not in baseline["modes"]:
        raise HypothesisRefused(f"--hypothesis {request.statement!r}: the baseline froze "
                                f"{', '.join(baseline['modes'])}, not {b}")
    return {"a": {"mode": a},
            "b": {"mode": b, "freeze_sha256": baseline["freeze_sha256"],
                  "system": {"name": baseline["system"]["name"], "version": baseline["system"]["version"]},
                  "output_dir": str(request.baseline_dir)},
            "metric": request.metric, "direction": direction, "test": request.test, "alpha": request.alpha,
            "statement": " ".join(request.statement.split())}

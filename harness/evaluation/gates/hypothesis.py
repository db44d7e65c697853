"""Hypotheses declared at the freeze: this freeze's system in one mode against another frozen run in one mode, each
hypothesis a member of one family that Holm's step-down adjustment decides at one family-wise alpha.

`freeze --hypothesis "hybrid > fts_only" --hypothesis-baseline DIR` (repeatable) records, in the freeze record's
`hypotheses` (and so in the digest every held-out receipt names), which arms each hypothesis compares, on which metric,
in which direction, by which test, one- or two-sided, and the family's alpha. Each baseline is named by its own freeze
record's digest, read from DIR/freeze.json, which must be a freeze of the same fixture, or of one that holds the same
dataset content and differs only in its embedding and text profile (`baseline_content`: "my model's vector_only >
the packaged model's vector_only"). See docs/comparing-systems.md for how a comparison reads them.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.errors import RefusedError
from harness.evaluation.gates.baseline_content import check_baseline_data
from harness.evaluation.gates.hypothesis_terms import (
    ADJUSTMENT,
    FamilyRequest,
    HypothesisError,
    HypothesisRequest,
    checked_terms,
)
from harness.evaluation.receipts.portable import command_in_words
from harness.hashing import sha256_canonical
from harness.json_input import read_document


class HypothesisRefused(RefusedError):
    """The baseline run a hypothesis names cannot be used: no freeze, a mode it did not freeze."""


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


def _checked_terms(request: HypothesisRequest, modes: tuple[str, ...]) -> tuple[str, str, str]:
    a, direction, b = checked_terms(request)
    if a not in modes:
        raise HypothesisError(f"--hypothesis {request.statement!r}: this freeze holds {', '.join(modes)}, not {a}; "
                              "declare a mode you freeze")
    return a, direction, b


def _member(request: HypothesisRequest, terms: tuple[str, str, str], fixture: Mapping[str, Any],
            fixture_sha256: str) -> dict[str, Any]:
    a, direction, b = terms
    baseline = _baseline_record(request.baseline_dir)
    check_baseline_data(request.baseline_dir, baseline, fixture, fixture_sha256)
    if b not in baseline["modes"]:
        raise HypothesisRefused(f"--hypothesis {request.statement!r}: the baseline froze "
                                f"{', '.join(baseline['modes'])}, not {b}")
    return {"a": {"mode": a},
            "b": {"mode": b, "freeze_sha256": baseline["freeze_sha256"],
                  "system": {"name": baseline["system"]["name"], "version": baseline["system"]["version"]},
                  # as the command line is recorded: a place outside the working directory in words
                  "output_dir": command_in_words([str(request.baseline_dir)])[0]},
            "metric": request.metric, "direction": direction, "test": request.test, "sided": request.sided,
            "statement": " ".join(request.statement.split())}


def _twice(members: list[dict[str, Any]]) -> None:
    """Refuses a family that tests one pair of arms on one metric twice (it would have two tries at one question)."""
    seen: dict[tuple[str, str, str, str], str] = {}
    for member in members:
        key = (member["a"]["mode"], member["b"]["mode"], member["b"]["freeze_sha256"], member["metric"])
        if key in seen:
            raise HypothesisError(f"--hypothesis {member['statement']!r} and --hypothesis {seen[key]!r} both test "
                                  f"this system's {key[0]} against {member['b']['output_dir']}'s {key[1]} on "
                                  f"{key[3]}: declare each pair of modes once per metric")
        seen[key] = member["statement"]


def declaration(request: FamilyRequest, *, modes: tuple[str, ...], fixture: Mapping[str, Any],
                fixture_sha256: str) -> dict[str, Any]:
    """The freeze record's `hypotheses` field, or an error naming what is wrong and the fix: every member's terms are
    checked (usage) before any baseline is read. `fixture`: this freeze's fixture's data (its dataset content)."""
    if not request.members:
        raise HypothesisError("a family of hypotheses needs at least one --hypothesis")
    if not 0 < request.alpha <= 0.5:
        raise HypothesisError(f"--hypothesis-alpha {request.alpha}: above 0 and at most 0.5")
    terms = [_checked_terms(member, modes) for member in request.members]
    members = [_member(member, found, fixture, fixture_sha256)
               for member, found in zip(request.members, terms, strict=True)]
    _twice(members)
    return {"alpha": request.alpha, "adjustment": ADJUSTMENT, "members": members}

"""What a --hypothesis declaration may say, and its request as the command line parsed it: the metrics, tests,
sidedness and defaults, the usage error. Light (no schema, no JSON reading), so that the freeze's parser imports it."""

import re
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.modes import MODES

TESTS = ("randomization", "t_test")
SIDES = ("two", "one")
METRICS = ("ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10", "map_at_10",
           "success_at_1", "success_at_5", "success_at_10")
DEFAULT_METRIC, DEFAULT_TEST, DEFAULT_SIDED, DEFAULT_ALPHA = "ndcg_at_10", "randomization", "two", 0.05
ADJUSTMENT = "holm"
DIRECTIONS = {">": "a_greater", "<": "a_less", "!=": "two_sided"}
_STATEMENT = re.compile(r"\s*(\w+)\s*(>|<|!=)\s*(\w+)\s*")
FORM = ('"A > B", "A < B" or "A != B", A a mode of this system and B a mode of the baseline run, for example '
        '"hybrid > fts_only"')


class HypothesisError(HarnessError):
    """A --hypothesis option is malformed (a usage error)."""


@dataclass(frozen=True)
class HypothesisRequest:
    """One hypothesis of the family: `sided` "one" tests it in its declared direction, "two" either way."""

    statement: str
    baseline_dir: Path
    metric: str = DEFAULT_METRIC
    test: str = DEFAULT_TEST
    sided: str = DEFAULT_SIDED


@dataclass(frozen=True)
class FamilyRequest:
    """The hypotheses one freeze declares, decided together by Holm's step-down adjustment at one family-wise
    alpha."""

    members: tuple[HypothesisRequest, ...]
    alpha: float = DEFAULT_ALPHA

    @classmethod
    def of(cls, *members: HypothesisRequest, alpha: float = DEFAULT_ALPHA) -> "FamilyRequest":
        return cls(tuple(members), alpha)


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


def checked_terms(request: HypothesisRequest) -> tuple[str, str, str]:
    """The statement's (a, direction, b), once every term of `request` is one a declaration may say."""
    a, direction, b = parse_statement(request.statement)
    if request.metric not in METRICS:
        raise HypothesisError(f"--hypothesis-metric {request.metric!r}: one of {', '.join(METRICS)}")
    if request.test not in TESTS:
        raise HypothesisError(f"--hypothesis-test {request.test!r}: one of {', '.join(TESTS)}")
    if request.sided not in SIDES:
        raise HypothesisError(f"--hypothesis-sided {request.sided!r}: one of {', '.join(SIDES)}")
    if request.sided == "one" and direction == "two_sided":
        raise HypothesisError(f"--hypothesis {request.statement!r} states no direction, so it cannot be tested "
                              f'one-sided: write "{a} > {b}" or "{a} < {b}", or test it two-sided '
                              "(--hypothesis-sided two)")
    return a, direction, b

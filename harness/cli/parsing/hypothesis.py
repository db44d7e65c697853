"""The freeze's options that declare a family of hypotheses (docs/comparing-systems.md), and the lines the freeze
prints.

`--hypothesis` is repeatable, one per member of the family. Each of `--hypothesis-baseline`, `--hypothesis-metric`,
`--hypothesis-test` and `--hypothesis-sided` is given once for every member, or once per `--hypothesis` in the same
order (or, but the baseline, left at its default); `--hypothesis-alpha`, the family's, at most once.
"""

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from harness.cli.parsing.paths import path_argument
from harness.evaluation.gates.hypothesis_terms import (
    DEFAULT_ALPHA,
    DEFAULT_METRIC,
    DEFAULT_SIDED,
    DEFAULT_TEST,
    METRICS,
    SIDES,
    TESTS,
    FamilyRequest,
    HypothesisError,
    HypothesisRequest,
    checked_terms,
)

T = TypeVar("T")
HYPOTHESIS_OPTIONS = ("hypothesis_baseline", "hypothesis_metric", "hypothesis_test", "hypothesis_sided",
                      "hypothesis_alpha")
EXAMPLE = '--hypothesis "hybrid > fts_only" --hypothesis-baseline DIR'


def _alpha(value: str) -> float:
    try:
        alpha = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not 0 < alpha <= 0.5:
        raise argparse.ArgumentTypeError(f"{value}: give a significance level above 0 and at most 0.5")
    return alpha


def add_hypothesis_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hypothesis", action="append", default=None, metavar='"A > B"',
                        help="declare, before any held-out run, that this system's mode A scores higher (>), lower "
                             "(<) or differently (!=) than the --hypothesis-baseline run's mode B; repeat it to "
                             "declare a family, decided together by Holm's adjustment; a held-out comparison of the "
                             "runs is then confirmatory")
    parser.add_argument("--hypothesis-baseline", type=path_argument, action="append", default=None, metavar="DIR",
                        help="the output directory of the frozen run a hypothesis compares against (its "
                             "freeze.json, of the same fixture): once for every --hypothesis, or once per "
                             "--hypothesis in order")
    parser.add_argument("--hypothesis-metric", choices=METRICS, action="append", default=None,
                        help=f"a hypothesis's metric (default {DEFAULT_METRIC}): once for every --hypothesis, or "
                             "once per --hypothesis in order")
    parser.add_argument("--hypothesis-test", choices=TESTS, action="append", default=None,
                        help=f"a hypothesis's paired test (default {DEFAULT_TEST}): once for every --hypothesis, or "
                             "once per --hypothesis in order")
    parser.add_argument("--hypothesis-sided", choices=SIDES, action="append", default=None,
                        help=f"test a directional hypothesis (> or <) one-sided, in its direction, or two-sided "
                             f"(default {DEFAULT_SIDED}): once for every --hypothesis, or once per --hypothesis in "
                             "order")
    parser.add_argument("--hypothesis-alpha", type=_alpha, action="append", default=None,
                        help=f"the family-wise significance level, one for all the hypotheses (default "
                             f"{DEFAULT_ALPHA})")


def _option(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _per_member(args: argparse.Namespace, dest: str, count: int, default: T | None) -> list[T]:
    """The option's value for each of `count` members: its one value for all, or one per member in order."""
    given: list[T] | None = getattr(args, dest)
    if not given:
        if default is None:
            raise HypothesisError(f"--hypothesis needs {_option(dest)} DIR, the output directory of the frozen run it "
                                  "compares against")
        return [default] * count
    if len(given) == 1:
        return given * count
    if len(given) != count:
        raise HypothesisError(f"{_option(dest)} is given {len(given)} times for {count} --hypothesis: give it once for "
                              "every hypothesis, or once per --hypothesis in the same order")
    return list(given)


def hypothesis_request(args: argparse.Namespace) -> FamilyRequest | None:
    statements: Sequence[str] | None = args.hypothesis
    if not statements:
        given = [dest for dest in HYPOTHESIS_OPTIONS if getattr(args, dest)]
        if given:
            raise HypothesisError(f"{_option(given[0])} without --hypothesis: state the hypothesis too, e.g. {EXAMPLE}")
        return None
    count = len(statements)
    baselines: list[Path] = _per_member(args, "hypothesis_baseline", count, None)
    metrics = _per_member(args, "hypothesis_metric", count, DEFAULT_METRIC)
    tests = _per_member(args, "hypothesis_test", count, DEFAULT_TEST)
    sides = _per_member(args, "hypothesis_sided", count, DEFAULT_SIDED)
    alphas: list[float] = args.hypothesis_alpha or [DEFAULT_ALPHA]
    if len(alphas) > 1:
        raise HypothesisError(f"--hypothesis-alpha is given {len(alphas)} times: the family of hypotheses has one "
                              "family-wise alpha; give it once")
    members = tuple(HypothesisRequest(*terms) for terms in zip(statements, baselines, metrics, tests, sides,
                                                                 strict=True))
    for member in members:
        checked_terms(member)
    return FamilyRequest(members, alphas[0])


def declared_lines(family: dict[str, Any]) -> list[str]:
    """What the freeze prints of the family it recorded: each member, then the family's adjustment and alpha."""
    lines = []
    for member in family["members"]:
        baseline = member["b"]
        lines.append(f"hypothesis declared: \"{member['statement']}\", this system's {member['a']['mode']} against "
                     f"{baseline['system']['name']} {baseline['system']['version']} {baseline['mode']} (freeze "
                     f"{baseline['freeze_sha256']}, {baseline['output_dir']}) on {member['metric']}, "
                     f"{member['sided']}-sided {member['test']}")
    count = len(family["members"])
    lines.append(f"a family of {count} hypothes{'is' if count == 1 else 'es'}, decided by Holm's adjustment over the "
                 f"family at family-wise alpha {family['alpha']}; a held-out `compare --run` of this run with its "
                 "baselines reads them as confirmatory")
    return lines

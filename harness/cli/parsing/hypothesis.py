"""The freeze's options that declare a hypothesis (docs/comparing-systems.md), and the line the freeze prints."""

import argparse
from typing import Any

from harness.cli.parsing.paths import path_argument
from harness.evaluation.gates.hypothesis_terms import (
    DEFAULT_ALPHA,
    DEFAULT_METRIC,
    DEFAULT_TEST,
    METRICS,
    TESTS,
    HypothesisError,
    HypothesisRequest,
)


def _alpha(value: str) -> float:
    try:
        alpha = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not 0 < alpha <= 0.5:
        raise argparse.ArgumentTypeError(f"{value}: give a significance level above 0 and at most 0.5")
    return alpha


def add_hypothesis_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hypothesis", default=None, metavar='"A > B"',
                        help="declare, before any held-out run, that this system's mode A scores higher (>), lower "
                             "(<) or differently (!=) than the --hypothesis-baseline run's mode B; a held-out "
                             "comparison between the two is then confirmatory")
    parser.add_argument("--hypothesis-baseline", type=path_argument, default=None, metavar="DIR",
                        help="the output directory of the frozen run the hypothesis compares against (its "
                             "freeze.json, of the same fixture)")
    parser.add_argument("--hypothesis-metric", choices=METRICS, default=DEFAULT_METRIC,
                        help=f"the hypothesis's metric (default {DEFAULT_METRIC})")
    parser.add_argument("--hypothesis-test", choices=TESTS, default=DEFAULT_TEST,
                        help=f"the hypothesis's paired test, two-sided (default {DEFAULT_TEST})")
    parser.add_argument("--hypothesis-alpha", type=_alpha, default=DEFAULT_ALPHA,
                        help=f"the hypothesis's significance level (default {DEFAULT_ALPHA})")


def hypothesis_request(args: argparse.Namespace) -> HypothesisRequest | None:
    if args.hypothesis is None:
        if args.hypothesis_baseline is not None:
            raise HypothesisError("--hypothesis-baseline without --hypothesis: state the hypothesis too, e.g. "
                                  '--hypothesis "hybrid > fts_only"')
        return None
    if args.hypothesis_baseline is None:
        raise HypothesisError("--hypothesis needs --hypothesis-baseline DIR, the output directory of the frozen run "
                              "it compares against")
    return HypothesisRequest(args.hypothesis, args.hypothesis_baseline, args.hypothesis_metric, args.hypothesis_test,
                             args.hypothesis_alpha)


def declared_line(hypothesis: dict[str, Any]) -> str:
    baseline = hypothesis["b"]
    return (f"hypothesis declared: \"{hypothesis['statement']}\", this system's {hypothesis['a']['mode']} against "
            f"{baseline['system']['name']} {baseline['system']['version']} {baseline['mode']} (freeze "
            f"{baseline['freeze_sha256']}, {baseline['output_dir']}) on {hypothesis['metric']}, {hypothesis['test']}, "
            f"alpha {hypothesis['alpha']}; a held-out `compare --run` of the two reads it as confirmatory")

"""What a --hypothesis declaration may say, and its request as the command line parsed it: the metrics, tests and
defaults, the usage error. Light (no schema, no JSON reading), so that the freeze's parser imports it."""

from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError

TESTS = ("randomization", "t_test")
METRICS = ("ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10", "map_at_10",
           "success_at_1", "success_at_5", "success_at_10")
DEFAULT_METRIC, DEFAULT_TEST, DEFAULT_ALPHA = "ndcg_at_10", "randomization", 0.05


class HypothesisError(HarnessError):
    """A --hypothesis option is malformed (a usage error)."""


@dataclass(frozen=True)
class HypothesisRequest:
    statement: str
    baseline_dir: Path
    metric: str = DEFAULT_METRIC
    test: str = DEFAULT_TEST
    alpha: float = DEFAULT_ALPHA

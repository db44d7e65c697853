"""The independent validator's verdicts on aggregates, in the form the comparison's gate takes: all of them in one
call (the model loaded once), each stored verdict reused while the bytes it read and the validator are unchanged."""

from collections.abc import Sequence

from harness.evaluation.comparison.artifact import Judged
from harness.validator.core.report import Report
from harness.validator.stored import Subject, validate_all


def why(report: Report) -> str:
    """The failing or unverified checks by name, else the verdict."""
    problems = [check.name for check in report.checks if check.status != "pass"]
    return ("failing or not verified: " + ", ".join(problems[:8])) if problems else report.verdict()


def validator_judgement(judged: Sequence[Judged]) -> list[tuple[bool, str]]:
    """(eligible, why) for each aggregate, each checked against its freeze record (None: the one it names), its
    verdict kept in the validation/ folder of the output directory it was read from."""
    reports = validate_all([Subject(item.aggregate, freeze=item.freeze, home=item.home) for item in judged])
    return [(report.eligible, why(report)) for report in reports]

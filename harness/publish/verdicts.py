"""The independent validator's verdict on an aggregate, in the form the comparison's gate takes."""

from pathlib import Path

from harness.validator.pipeline import validate


def validator_judgement(aggregate: Path, freeze: Path | None = None) -> tuple[bool, str]:
    """(eligible, why): the failing or unverified checks by name, else the verdict; `freeze` is the freeze record the
    receipt is checked against (None: the one it names)."""
    report = validate(aggregate, freeze=freeze)
    problems = [check.name for check in report.checks if check.status != "pass"]
    return report.eligible, ("failing or not verified: " + ", ".join(problems[:8])) if problems else report.verdict()

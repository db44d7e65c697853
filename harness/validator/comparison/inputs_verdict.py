"""A comparison's verdict on its inputs: it is no more established than they are. An input with a failed check fails
the comparison; an input that could only not be verified (nothing failed: a model or an archive not at hand) leaves
the comparison not verified, never failed."""

from ..core.report import Report


def judge_inputs(report: Report, name: str, detail: str, problems: list[str],
                 inputs: list[tuple[str, str, Report]]) -> None:
    """`problems`: what is wrong with the comparison's own record of its inputs; `inputs`: each input's label, file
    name and verdict here."""
    failed = problems + [f"{label}: {file} is not eligible ({', '.join(c.name for c in verdict.failed[:6])} failed)"
                         for label, file, verdict in inputs if verdict.failed]
    unverified = [f"{label}: {file} ({', '.join(c.name for c in verdict.not_verified[:6])} not verified)"
                  for label, file, verdict in inputs if not verdict.failed and verdict.not_verified]
    if failed:
        report.fail(name, detail, "eligible inputs", failed[:4])
    elif unverified:
        report.unverified(name, f"{detail}: no input failed, and these could not be verified here, so neither can "
                          f"the comparison: {'; '.join(unverified[:4])}")
    else:
        report.ok(name, detail)

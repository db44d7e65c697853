"""A comparison's verdict on its inputs: it is no more established than they are. An input with a failed check fails
the comparison; an input that could only not be verified (nothing failed: a model or an archive not at hand) leaves
the comparison not verified, never failed. An input whose rankings are attested (a run file's) makes the comparison's
claim one of ranking attested too."""

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
    attested = [verdict.notes["ranking"] for _, _, verdict in inputs if verdict.notes.get("ranking")]
    if attested:  # a comparison is no more than its inputs: a run file's rankings are attested in it too
        report.notes["ranking"] = {"kind": "attested",
                                   **{key: sorted({v for r in attested for v in r[key]})
                                      for key in ("producers", "files", "sha256")}}

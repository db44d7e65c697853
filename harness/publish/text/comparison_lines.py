"""What a finished comparison of a split's modes prints, from `compare` and from the suite's `pytest -m compare`: the
file, its queries, whether its inputs were validated, the procedure, one sentence per pair, and the command that
checks it independently."""

from pathlib import Path
from typing import Any

from harness.publish.text.report_text import verdict
from harness.typed_commands import shown, validator_command


def modes_summary(path: Path, document: dict[str, Any], moved: Path | None) -> list[str]:
    checked = ("inputs ELIGIBLE under the validator" if document["inputs_validation"]["validated"]
               else "inputs NOT validated (--no-validate)")
    procedure = document["procedure"]
    lines = [f"comparison {shown(path)}: {document['query_count']} queries, {checked}; seed {procedure['seed']}, "
             f"{procedure['bootstrap_resamples']} resamples, {procedure['permutations']} permutations"]
    lines += [f"  {verdict(comparison, document['split'])}" for comparison in document["comparisons"]]
    if moved is not None:
        lines.append(f"  the earlier comparison was moved to {shown(moved)}")
    return [*lines, f"check it independently: {validator_command('--comparison', shown(path))}"]

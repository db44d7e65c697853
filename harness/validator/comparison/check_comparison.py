"""A comparison artifact checked from primary data: its inputs by digest, the rows' rankings and qrels, the
stated procedure, every statistic recomputed with the validator's own code, and each input aggregate's own
eligibility under the full validator."""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..core.digests import sha256_file
from ..core.modes import MODES
from ..core.report import Report
from ..dataset.named import established
from . import paired_stats
from .comparison_experiment import check_experiment
from .comparison_inputs import Input, Values, chosen_names, count_problem, read_comparison, read_input, recompute
from .comparison_stats import check_means, check_procedure, check_statistics
from .inputs_verdict import judge_inputs

EXACT_SPLITS = ("heldout", "all")

Judge = Callable[[Path], Report]


def _load_inputs(document: dict[str, Any], directory: Path, report: Report) -> dict[str, Input] | None:
    """mode -> its input, when every named file is there with its recorded digest."""
    split, problems, loaded = document["split"], [], {}
    named = [entry["mode"] for entry in document["inputs"]]
    if len(named) < 2 or named != [mode for mode in MODES if mode in named]:
        problems.append(f"inputs {named} are not two modes or more, each once, in the order {list(MODES)}")
    if set(document["modes"]) != set(named):
        problems.append(f"the means are stated for {sorted(document['modes'])}, the inputs are {named}")
    for entry in document["inputs"]:
        found = read_input(entry["mode"], entry, directory, split)
        if isinstance(found, str):
            problems.append(found)
        else:
            loaded[entry["mode"]] = found
    ok = report.expect("comparison.inputs", not problems, f"each mode's rows and aggregate are in {directory} with the "
                       "recorded sha256, and each aggregate names those rows, its run and configuration",
                       "the recorded inputs", problems[:4])
    return loaded if ok else None


def _values(document: dict[str, Any], loaded: dict[str, Input], report: Report) -> Values | None:
    """mode -> metric -> per-query values, recomputed from each row's ranked ids and qrels."""
    found = recompute(loaded, document["split"], chosen_names(document))
    counted = count_problem(found.query_ids, document["query_count"], document["query_ids_sha256"])
    problems = found.problems + ([counted] if counted else [])
    ok = report.expect("comparison.rows", not problems, "every mode's rows list the same queries in split order, "
                       "the comparison's count and digest, and metrics their rankings and qrels give",
                       "consistent rows", problems[:4])
    return found.values if ok else None


def _eligibility(document: dict[str, Any], loaded: dict[str, Input], judge: Judge,
                 known: Mapping[str, Report], report: Report) -> None:
    problems = []
    record = document["inputs_validation"]
    if document["split"] in EXACT_SPLITS and not record["validated"]:
        problems.append(f"a {document['split']} comparison records that its inputs were not validated")
    if record["validated"] and record["verdicts"] != dict.fromkeys(loaded, "ELIGIBLE"):
        problems.append(f"the recorded verdicts are {record['verdicts']}")
    established_here: set[str] = set()
    inputs = []
    for mode, entry in loaded.items():
        digest = sha256_file(entry.aggregate_path)
        verdict = known[digest] if digest in known else judge(entry.aggregate_path)
        established_here.update(established(verdict))
        inputs.append((mode, entry.aggregate_path.name, verdict))
    judge_inputs(report, "comparison.inputs_eligible", "every input aggregate is ELIGIBLE under this validator "
                 "(replayed, re-hashed, its history read), as the comparison records", problems, inputs)
    report.notes["compared_datasets"] = sorted(established_here)


def check_comparison(path: Path, judge: Judge, *, artifacts_dir: Path | None = None,
                     known: Mapping[str, Report] | None = None) -> Report:
    """`judge` validates an aggregate; `known` maps aggregate sha256 to a report this process already made."""
    report = Report(str(path))
    document = read_comparison(path, "comparison", "comparison.schema", report)
    if document is None:
        return report
    loaded = _load_inputs(document, artifacts_dir or path.parent, report)
    if loaded is None:
        return report
    values = _values(document, loaded, report)
    check_experiment(document["split"], loaded, report)
    check_procedure(document["procedure"], report)
    if values is not None:
        procedure = document["procedure"]
        drawn = paired_stats.sample(procedure["seed"], document["query_count"], procedure["bootstrap_resamples"],
                                    procedure["permutations"])
        check_means(document, values, drawn, {m: e.aggregate for m, e in loaded.items()}, report)
        check_statistics(document, values, drawn, report)
    _eligibility(document, loaded, judge, known or {}, report)
    return report

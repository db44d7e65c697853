"""A comparison between systems (`scifact-systems-comparison-v3`, docs/comparing-systems.md) checked from primary
data: each run's files and freeze record by digest, the rows' rankings and qrels, what the runs must share, every
statistic and the pairs recomputed with the validator's own code, each declared family of hypotheses with each
member's status and result, each input aggregate's own eligibility under the full validator against its run's freeze
record, and the data each run's fixture holds as those validations read it. A comparison of an earlier format (v1:
one two-sided hypothesis per freeze, read unadjusted; v2: runs of one fixture, which it did not record) is refused,
naming the fix: compare the runs again."""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..core.digests import sha256_file
from ..core.report import Report
from ..core.strict_json import StrictJSONError, load_file
from ..dataset.named import established
from .comparison_inputs import Values, chosen_names, count_problem, read_comparison, recompute
from .inputs_verdict import judge_inputs
from .systems_data import check_systems_data
from .systems_experiment import check_systems_experiment
from .systems_hypothesis import check_hypotheses
from .systems_inputs import Loaded, load_runs
from .systems_pairs import hypotheses
from .systems_statistics import check_systems_statistics, draws

SCHEMA = "scifact-systems-comparison-v3"
EARLIER = {"scifact-systems-comparison-v1": "the format before families of hypotheses and one-sided tests",
           "scifact-systems-comparison-v2": "the format before runs recorded their fixture and embedding"}
EXACT_SPLITS = ("heldout", "all")
VALIDATION_RULE = ("held-out and all-query comparisons read only aggregates the independent validator finds ELIGIBLE, "
                   "each against its own run's freeze record; a calibration comparison may skip the validator with "
                   "--no-validate, and then says so here")

# (an aggregate, its run's freeze record or None, its run's name) -> the full validator's report
Judge = Callable[[Path, Path | None, str], Report]


def _values(document: dict[str, Any], loaded: Loaded, report: Report) -> Values | None:
    found = recompute(loaded.arms, document["split"], chosen_names(document))
    counted = count_problem(found.query_ids, document["query_count"], document["query_ids_sha256"])
    problems = found.problems + ([counted] if counted else [])
    ok = report.expect("systems.rows", not problems, "every arm's rows list the same queries in split order, the "
                       "comparison's count and digest, and metrics their rankings and qrels give", "consistent rows",
                       problems[:4])
    return found.values if ok else None


def _eligibility(document: dict[str, Any], loaded: Loaded, judge: Judge, known: Mapping[str, Report],
                 report: Report) -> dict[str, Report]:
    """systems.inputs_eligible; each arm's verdict by its label."""
    record, problems = document["inputs_validation"], []
    if record["rule"] != VALIDATION_RULE:
        problems.append(f"the validation rule reads {record['rule']!r}, not {VALIDATION_RULE!r}")
    if document["split"] in EXACT_SPLITS and not record["validated"]:
        problems.append(f"a {document['split']} comparison records that its inputs were not validated")
    wanted = dict.fromkeys(loaded.arms, "ELIGIBLE") if record["validated"] else None
    if record["verdicts"] != wanted:
        problems.append(f"the recorded verdicts are {record['verdicts']}, not {wanted}")
    established_here: set[str] = set()
    inputs, verdicts = [], {}
    for label, arm in loaded.arms.items():
        digest = sha256_file(arm.aggregate_path)
        run = loaded.run_of[label]
        verdict = known[digest] if digest in known else judge(arm.aggregate_path, run.freeze_path, run.name)
        established_here.update(established(verdict))
        inputs.append((label, arm.aggregate_path.name, verdict))
        verdicts[label] = verdict
    judge_inputs(report, "systems.inputs_eligible", "every input aggregate is ELIGIBLE under this validator against "
                 "its run's freeze record (its embedding verified), as the comparison records", problems, inputs)
    report.notes["compared_datasets"] = sorted(established_here)
    return verdicts


def _earlier_format(path: Path) -> str | None:
    """The earlier format a comparison file states, if it states one."""
    try:
        document = load_file(path)
    except (OSError, StrictJSONError):
        return None
    stated = document.get("schema") if isinstance(document, dict) else None
    return stated if stated in EARLIER else None


def check_systems_comparison(path: Path, judge: Judge, *, known: Mapping[str, Report] | None = None) -> Report:
    """`judge` validates an aggregate against a freeze record; `known` maps aggregate sha256 to a report this process
    already made."""
    report = Report(str(path))
    earlier = _earlier_format(path)
    if earlier is not None:
        report.fail("systems.schema", f"the comparison is {SCHEMA}", SCHEMA,
                    f"{earlier}, {EARLIER[earlier]}: compare the runs again with this harness (python -m harness "
                    "compare --split SPLIT --run NAME=DIR ...)")
        return report
    document = read_comparison(path, "systems-comparison", "systems.schema", report)
    if document is None:
        return report
    loaded = load_runs(document, path.parent, report)
    if loaded is None:
        return report
    values = _values(document, loaded, report)
    check_systems_experiment(document, loaded, report)
    if values is not None:
        declared = hypotheses(loaded.runs, loaded.arms, document["split"])
        drawn = draws(document)
        check_systems_statistics(document, values, loaded.arms, declared, drawn, report)
        check_hypotheses(document, declared, values, drawn, report)
    verdicts = _eligibility(document, loaded, judge, known or {}, report)
    check_systems_data(document, loaded, verdicts, report)
    return report

"""A comparison artifact checked from primary data: its inputs by digest, the rows' rankings and qrels, the
stated procedure, every statistic recomputed with the validator's own code, and each input aggregate's own
eligibility under the full validator."""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..core.digests import sha256_canonical, sha256_file
from ..core.report import Report
from ..core.schemas import violation
from ..core.strict_json import StrictJSONError, load_file, load_lines
from ..retrieval import ir_metrics
from . import paired_stats
from .comparison_experiment import check_experiment
from .comparison_stats import check_means, check_procedure, check_statistics

MODES = ("fts_only", "vector_only", "hybrid")
EXACT_SPLITS = ("heldout", "all")

Judge = Callable[[Path], Report]


def _load_inputs(document: dict[str, Any], directory: Path, report: Report) -> dict[str, dict[str, Any]] | None:
    """mode -> {aggregate, aggregate_path, rows_path}, when every named file is there with its recorded digest."""
    split, problems, loaded = document["split"], [], {}
    named = [entry["mode"] for entry in document["inputs"]]
    if len(named) < 2 or named != [mode for mode in MODES if mode in named]:
        problems.append(f"inputs {named} are not two modes or more, each once, in the order {list(MODES)}")
    if set(document["modes"]) != set(named):
        problems.append(f"the means are stated for {sorted(document['modes'])}, the inputs are {named}")
    for entry in document["inputs"]:
        mode = entry["mode"]
        names = (f"scifact-{mode}-{split}.jsonl", f"scifact-{mode}-{split}.aggregate.json")
        if (entry["rows"], entry["aggregate"]) != names:
            problems.append(f"{mode}: names {entry['rows']}, {entry['aggregate']}, not the {split} artifacts {names}")
            continue
        rows_path, aggregate_path = directory / entry["rows"], directory / entry["aggregate"]
        missing = [p.name for p in (rows_path, aggregate_path) if not p.is_file()]
        if missing:
            problems.append(f"{mode}: {', '.join(missing)} missing from {directory}")
            continue
        found = (sha256_file(rows_path), sha256_file(aggregate_path))
        if found != (entry["rows_sha256"], entry["aggregate_sha256"]):
            problems.append(f"{mode}: rows/aggregate sha256 {found}, recorded {entry['rows_sha256']}, "
                            f"{entry['aggregate_sha256']}")
            continue
        try:
            aggregate = load_file(aggregate_path)
        except StrictJSONError as exc:
            problems.append(f"{mode}: {aggregate_path.name}: {exc}")
            continue
        receipt = aggregate.get("receipt", {}) if isinstance(aggregate, dict) else {}
        stated = (aggregate.get("mode"), aggregate.get("split"), aggregate.get("per_query_path"),
                  aggregate.get("per_query_sha256"), receipt.get("run", {}).get("run_id"),
                  receipt.get("retrieval", {}).get("config_sha256"))
        recorded = (mode, split, entry["rows"], entry["rows_sha256"], entry["run_id"], entry["config_sha256"])
        if stated != recorded:
            problems.append(f"{mode}: the aggregate states {stated}, the comparison {recorded}")
            continue
        loaded[mode] = {"aggregate": aggregate, "aggregate_path": aggregate_path, "rows_path": rows_path}
    ok = report.expect("comparison.inputs", not problems, f"each mode's rows and aggregate are in {directory} with the "
                       "recorded sha256, and each aggregate names those rows, its run and configuration",
                       "the recorded inputs", problems[:4])
    return loaded if ok else None


def _values(document: dict[str, Any], loaded: dict[str, dict[str, Any]],
            report: Report) -> dict[str, dict[str, list[float]]] | None:
    """mode -> metric -> per-query values, recomputed from each row's ranked ids and qrels."""
    problems: list[str] = []
    values: dict[str, dict[str, list[float]]] = {}
    query_ids: list[str] | None = None
    for mode, entry in loaded.items():
        try:
            rows = load_lines(entry["rows_path"])
        except StrictJSONError as exc:
            problems.append(f"{mode}: {exc}")
            continue
        entry["rows"] = rows
        ids = [row.get("query_id") for row in rows]
        if query_ids is None:
            query_ids = ids
        elif ids != query_ids:
            problems.append(f"{mode}: its rows list other queries, or another order, than {MODES[0]}'s")
        selected = entry["aggregate"].get("receipt", {}).get("split", {}).get("selected_ids_sha256")
        if sha256_canonical(ids) != selected:
            problems.append(f"{mode}: the rows' query ids do not hash to the receipt's selected_ids_sha256")
        columns: dict[str, list[float]] = {key: [] for key in ir_metrics.KEYS}
        for number, row in enumerate(rows, start=1):
            if (row.get("mode"), row.get("split")) != (mode, document["split"]):
                problems.append(f"{mode}: row {number} is {row.get('mode')} {row.get('split')}")
            try:
                recomputed = ir_metrics.compute(list(row.get("ranked_doc_ids", [])), dict(row.get("qrels", {})))
            except ValueError as exc:
                problems.append(f"{mode}: row {number} ({row.get('query_id')}): {exc}")
                continue
            stated = row.get("metrics", {})
            if any(not ir_metrics.close(recomputed[k], stated.get(k)) for k in ir_metrics.KEYS):
                problems.append(f"{mode}: row {number} ({row.get('query_id')}) states metrics its ranking and qrels "
                                "do not give")
            for key in ir_metrics.KEYS:
                columns[key].append(recomputed[key])
        values[mode] = columns
    if query_ids is not None and (len(query_ids) != document["query_count"]
                                  or sha256_canonical(query_ids) != document["query_ids_sha256"]):
        problems.append(f"{len(query_ids)} queries whose ids hash to {sha256_canonical(query_ids)}; the comparison "
                        f"states {document['query_count']} and {document['query_ids_sha256']}")
    ok = report.expect("comparison.rows", not problems, "every mode's rows list the same queries in split order, "
                       "the comparison's count and digest, and metrics their rankings and qrels give",
                       "consistent rows", problems[:4])
    return values if ok else None


def _eligibility(document: dict[str, Any], loaded: dict[str, dict[str, Any]], judge: Judge,
                 known: Mapping[str, Report], report: Report) -> None:
    problems = []
    record = document["inputs_validation"]
    if document["split"] in EXACT_SPLITS and not record["validated"]:
        problems.append(f"a {document['split']} comparison records that its inputs were not validated")
    if record["validated"] and record["verdicts"] != dict.fromkeys(loaded, "ELIGIBLE"):
        problems.append(f"the recorded verdicts are {record['verdicts']}")
    for mode, entry in loaded.items():
        digest = sha256_file(entry["aggregate_path"])
        verdict = known[digest] if digest in known else judge(entry["aggregate_path"])
        if not verdict.eligible:
            failing = [c.name for c in verdict.checks if c.status != "pass"]
            problems.append(f"{mode}: {entry['aggregate_path'].name} is not eligible ({', '.join(failing[:6])})")
    report.expect("comparison.inputs_eligible", not problems, "every input aggregate is ELIGIBLE under this "
                  "validator (replayed, re-hashed, its history read), as the comparison records", "eligible inputs",
                  problems[:4])


def check_comparison(path: Path, judge: Judge, *, artifacts_dir: Path | None = None,
                     known: Mapping[str, Report] | None = None) -> Report:
    """`judge` validates an aggregate; `known` maps aggregate sha256 to a report this process already made."""
    report = Report(str(path))
    if not path.is_file():
        report.fail("inputs", "the comparison named exists", "a file", f"{path} is missing or not a file")
        return report
    try:
        document = load_file(path)
    except StrictJSONError as exc:
        report.fail("comparison.schema", "the comparison is strict JSON", "strict JSON", str(exc))
        return report
    found = violation(document, "comparison")
    if not report.expect("comparison.schema", found is None, "the comparison matches comparison.schema.json",
                         "no violation", found):
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
        check_means(document, values, drawn, {m: e["aggregate"] for m, e in loaded.items()}, report)
        check_statistics(document, values, drawn, report)
    _eligibility(document, loaded, judge, known or {}, report)
    return report

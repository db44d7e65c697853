"""A comparison's inputs: each mode's (or arm's) rows and aggregate, read by the names and digests the comparison
records; and the per-query metric values, recomputed from each row's ranking and qrels, with what is wrong with the
rows (other queries or another order than the first input's, a row of another mode or split, metrics its ranking and
qrels do not give, ids that do not hash to the receipt's selection). The metrics are recomputed under the metric
conventions of the validator's own pins for the dataset each receipt's contract names (each input aggregate, validated
in full, is held to its fixture's pins and to those conventions)."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.digests import sha256_canonical, sha256_file
from ..core.report import Report
from ..core.schemas import violation
from ..core.strict_json import StrictJSONError, load_file, load_lines
from ..dataset.pins import artifact_name
from ..retrieval import ir_metrics
from ..retrieval.named_measures import NamedMeasure, NameRefused, parse
from ..rows.check_chosen import chosen_value
from ..rows.measures import pinned_conventions

Values = dict[str, dict[str, list[float]]]  # input key (a mode, or an arm's label) -> metric -> values in row order


@dataclass
class Input:
    """One input of a comparison: a mode's (or an arm's) rows and aggregate, read once."""

    mode: str
    rows_path: Path
    aggregate_path: Path
    aggregate: dict[str, Any]
    rows: list[dict[str, Any]] | None = None  # set when the rows parse
    judged: dict[Any, Any] = field(default_factory=dict)  # query id -> the row's qrels

    @property
    def receipt(self) -> dict[str, Any]:
        receipt = self.aggregate.get("receipt")
        return receipt if isinstance(receipt, dict) else {}

    @property
    def dataset(self) -> Any:
        """The name of the dataset the receipt's contract names (None when the receipt does not say)."""
        corpus = self.receipt.get("corpus")
        contract = corpus.get("contract") if isinstance(corpus, dict) else None
        return contract.get("name") if isinstance(contract, dict) else None


def read_input(key: str, entry: dict[str, Any], directory: Path, split: str) -> Input | str:
    """The input `entry` records (its mode's rows and aggregate of `split` in `directory`), or what is wrong with it:
    another file name, a file missing, another sha256, an aggregate that names other rows, run or configuration."""
    mode = entry["mode"]
    tails = (f"-{mode}-{split}.jsonl", f"-{mode}-{split}.aggregate.json")
    named = str(entry["rows"]).removesuffix(tails[0])
    if not named or (entry["rows"], entry["aggregate"]) != (named + tails[0], named + tails[1]):
        return (f"{key}: names {entry['rows']}, {entry['aggregate']}, not the {split} artifacts of {mode} "
                f"(DATASET{tails[0]}, DATASET{tails[1]})")
    rows_path, aggregate_path = directory / entry["rows"], directory / entry["aggregate"]
    missing = [p.name for p in (rows_path, aggregate_path) if not p.is_file()]
    if missing:
        return f"{key}: {', '.join(missing)} missing from {directory}"
    found = (sha256_file(rows_path), sha256_file(aggregate_path))
    if found != (entry["rows_sha256"], entry["aggregate_sha256"]):
        return f"{key}: rows/aggregate sha256 {found}, recorded {entry['rows_sha256']}, {entry['aggregate_sha256']}"
    try:
        aggregate = load_file(aggregate_path)
    except StrictJSONError as exc:
        return f"{key}: {aggregate_path.name}: {exc}"
    if not isinstance(aggregate, dict):
        return f"{key}: {aggregate_path.name} is not a JSON object"
    loaded = Input(mode, rows_path, aggregate_path, aggregate)
    receipt = loaded.receipt
    stated = (aggregate.get("mode"), aggregate.get("split"), aggregate.get("per_query_path"),
              aggregate.get("per_query_sha256"), receipt.get("run", {}).get("run_id"),
              receipt.get("retrieval", {}).get("config_sha256"))
    recorded = (mode, split, entry["rows"], entry["rows_sha256"], entry["run_id"], entry["config_sha256"])
    if stated != recorded:
        return f"{key}: the aggregate states {stated}, the comparison {recorded}"
    if artifact_name(loaded.dataset) != named:
        return (f"{key}: {entry['aggregate']} is named for {named}, but its receipt is a run of {loaded.dataset} "
                f"({artifact_name(loaded.dataset)}-{mode}-{split}.aggregate.json)")
    return loaded


@dataclass
class Recomputed:
    values: Values
    query_ids: list[Any] | None
    problems: list[str]


def _chosen(entry: Input, names: list[str], key: str, problems: list[str]) -> list[NamedMeasure]:
    """The measures chosen by name that the comparison compares, each of which the input's run chose."""
    chosen = (entry.aggregate.get("measures") or {}).get("names", [])
    measures = []
    for name in names:
        try:
            measure = parse(name, max_cutoff=ir_metrics.DEPTH)
        except NameRefused as exc:
            problems.append(f"{key}: {exc}")
            continue
        if measure.name != name or name not in chosen:
            problems.append(f"{key}: the comparison compares {name!r}, which its run did not choose by that name "
                            f"(it chose {chosen})")
            continue
        measures.append(measure)
    return measures


def recompute(inputs: dict[str, Input], split: str, names: list[str] | None = None) -> Recomputed:
    """Each input's values, read from its rows (which stay on the input), keyed as `inputs` is: the default metrics,
    and `names`, the measures chosen by name the comparison compares beside them."""
    problems: list[str] = []
    values: Values = {}
    query_ids: list[Any] | None = None
    first = next(iter(inputs), None)
    for key, entry in inputs.items():
        try:
            rows = load_lines(entry.rows_path)
        except StrictJSONError as exc:
            problems.append(f"{key}: {exc}")
            continue
        entry.rows = rows
        entry.judged = {row.get("query_id"): row.get("qrels") for row in rows}
        ids = [row.get("query_id") for row in rows]
        if query_ids is None:
            query_ids = ids
        elif ids != query_ids:
            problems.append(f"{key}: its rows list other queries, or another order, than {first}'s")
        if sha256_canonical(ids) != entry.receipt.get("split", {}).get("selected_ids_sha256"):
            problems.append(f"{key}: the rows' query ids do not hash to the receipt's selected_ids_sha256")
        measures = _chosen(entry, names or [], key, problems)
        columns: dict[str, list[float]] = {metric: [] for metric in (*ir_metrics.KEYS, *(m.name for m in measures))}
        conventions = pinned_conventions(entry.dataset).conventions
        top_k = int(entry.receipt.get("retrieval", {}).get("top_k", 10))
        for number, row in enumerate(rows, start=1):
            if (row.get("mode"), row.get("split")) != (entry.mode, split):
                problems.append(f"{key}: row {number} is {row.get('mode')} {row.get('split')}")
            try:
                recomputed = ir_metrics.compute(list(row.get("ranked_doc_ids", [])), dict(row.get("qrels", {})),
                                                conventions)
            except ValueError as exc:
                problems.append(f"{key}: row {number} ({row.get('query_id')}): {exc}")
                continue
            stated = row.get("metrics", {})
            if any(not ir_metrics.close(recomputed[m], stated.get(m)) for m in ir_metrics.KEYS):
                problems.append(f"{key}: row {number} ({row.get('query_id')}) states metrics its ranking and qrels "
                                "do not give")
            for metric in ir_metrics.KEYS:
                columns[metric].append(recomputed[metric])
            for measure in measures:
                try:
                    columns[measure.name].append(chosen_value(measure, row, top_k, conventions))
                except (ValueError, KeyError, TypeError) as exc:
                    problems.append(f"{key}: row {number} ({row.get('query_id')}): {measure.name}: {exc!r}")
        values[key] = columns
    return Recomputed(values, query_ids, problems)


def count_problem(query_ids: list[Any] | None, count: int, digest: str) -> str | None:
    """What is wrong with the comparison's stated query count and id digest, if anything."""
    if query_ids is None or (len(query_ids) == count and sha256_canonical(query_ids) == digest):
        return None
    return (f"{len(query_ids)} queries whose ids hash to {sha256_canonical(query_ids)}; the comparison states {count} "
            f"and {digest}")


def read_comparison(path: Path, schema: str, check: str, report: Report) -> dict[str, Any] | None:
    """The comparison file at `path` when it exists, is strict JSON and matches `schema` (failing `check` else)."""
    if not path.is_file():
        report.fail("inputs", "the comparison named exists", "a file", f"{path} is missing or not a file")
        return None
    try:
        document: dict[str, Any] = load_file(path)
    except StrictJSONError as exc:
        report.fail(check, "the comparison is strict JSON", "strict JSON", str(exc))
        return None
    found = violation(document, schema)
    if not report.expect(check, found is None, f"the comparison matches {schema}.schema.json", "no violation", found):
        return None
    return document


def chosen_names(document: dict[str, Any]) -> list[str]:
    """The measures chosen by name a comparison compares: its `metrics` after the default ones."""
    metrics = document.get("metrics")
    return [m for m in metrics if m not in ir_metrics.KEYS] if isinstance(metrics, list) else []

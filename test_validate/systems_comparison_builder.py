"""A comparison between systems (`scifact-systems-<split>.json`) written from real run directories, as
docs/comparing-systems.md specifies it, with the runner's paired statistics (not the validator's): the genuine file the
validator must find ELIGIBLE, and a careful forger's tool (edit the runs, then build again, and every number follows).

It checks nothing: it records what the runs hold, so that the validator alone refuses what is wrong.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path

from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.artifact import Procedure
from harness.evaluation.comparison.hypothesis_results import PROCEDURES as HYPOTHESIS_PROCEDURES
from harness.evaluation.comparison.inputs import METRICS

from .support import MODES, Json, sha256_canonical, sha256_file

SCHEMA = "scifact-systems-comparison-v3"
FREEZE = "freeze.json"
VALIDATION_RULE = ("held-out and all-query comparisons read only aggregates the independent validator finds ELIGIBLE, "
                   "each against its own run's freeze record; a calibration comparison may skip the validator with "
                   "--no-validate, and then says so here")
HOLM_FAMILY = ("for each metric separately, every pair of arms this artifact compares on this split (the pairs the "
               "pairing rule gives and the pair of any declared hypothesis), two-sided: an exploratory reading that "
               "decides no hypothesis (hypothesis_family does); nDCG@10 is the primary metric, the others secondary")
DEFAULT = Procedure()
CONFIRMATORY = ("declared at the freeze before either arm's run started, with no earlier held-out look at the dataset "
                "before the declaration as both arms' receipts attest it (the publisher's held-out record), and tested "
                "on the held-out split as declared")


@dataclass(frozen=True)
class RunSpec:
    """`--run NAME=DIR`, or `--run NAME:MODE=DIR` with `mode`."""

    name: str
    directory: Path
    mode: str | None = None


def comparison_name(dataset: str, split: str) -> str:
    return f"{dataset}-systems-{split}.json"


def dataset_of(directory: Path) -> str:
    """The dataset the names of a run directory's aggregates carry (one per directory)."""
    tails = tuple(f"-{m}-{s}.aggregate.json" for m in MODES for s in ("calibration", "heldout", "all"))
    found = {p.name.removesuffix(next(t for t in tails if p.name.endswith(t))) for p in directory.iterdir()
             if p.name.endswith(tails)}
    assert len(found) == 1, f"{directory} holds runs of {sorted(found)}"
    return found.pop()


def _read(path: Path) -> Json:
    value: Json = json.loads(path.read_text(encoding="utf-8"))
    return value


def _run(spec: RunSpec, split: str, where: Path) -> tuple[Json, Json | None]:
    """The run's entry in the file, and its freeze record (None without one)."""
    freeze_path = spec.directory / FREEZE
    record = _read(freeze_path) if freeze_path.is_file() else None
    if spec.mode is not None:
        modes = [spec.mode]
    elif record is not None:
        modes = [m for m in MODES if m in record["modes"]]
    else:
        modes = [m for m in MODES if (spec.directory / f"{dataset_of(spec.directory)}-{m}-{split}.aggregate.json"
                                      ).is_file()]
    receipt = _read(spec.directory / f"{dataset_of(spec.directory)}-{modes[0]}-{split}.aggregate.json")["receipt"]
    freeze = None if record is None else {"file": FREEZE, "file_sha256": sha256_file(freeze_path),
                                          "freeze_sha256": record["freeze_sha256"]}
    return {"name": spec.name, "output_dir": Path(os.path.relpath(spec.directory, where)).as_posix(),
            "mode_choice": spec.mode, "modes": modes,
            "system": {k: receipt["system"][k] for k in ("name", "version")}, "freeze": freeze,
            "fixture": {"sha256": receipt["corpus"]["fixture_sha256"], "profile": receipt["profile"]["name"]},
            "embedding": {k: receipt["embedding"][k] for k in ("model", "identity_sha256", "dimensions")}}, record


def _fixtures(runs: list[Json]) -> str:
    """The specification's sentence about the runs' fixtures: one, or several that differ in embedding or profile."""
    fixtures = {run["fixture"]["sha256"] for run in runs}
    if len(fixtures) == 1:
        return (f"every run read one fixture ({runs[0]['fixture']['sha256']}), so every arm has the same embedding "
                f"({runs[0]['embedding']['model']}, identity {runs[0]['embedding']['identity_sha256']})")
    kinds = [kind for kind, key, field in (("embedding", "embedding", "identity_sha256"),
                                           ("text profile", "fixture", "profile"))
             if len({run[key][field] for run in runs}) > 1]
    what = " and ".join(kinds) or "vectors (under one embedding identity and text profile)"
    each = "; ".join(f"{run['name']}: {run['embedding']['model']} (identity {run['embedding']['identity_sha256']}, "
                     f"text profile {run['fixture']['profile']})" for run in runs)
    return (f"the runs read {len(fixtures)} fixtures that hold the same documents, queries and judgements and differ "
            f"in their {what}: {each}; so the arms of runs on different fixtures differ in their {what}, besides any "
            "difference of system or configuration")


def _arm(spec: RunSpec, mode: str, split: str) -> tuple[Json, Json, list[Json]]:
    """The arm's input entry, its aggregate and its rows."""
    dataset = dataset_of(spec.directory)
    rows_name, aggregate_name = f"{dataset}-{mode}-{split}.jsonl", f"{dataset}-{mode}-{split}.aggregate.json"
    aggregate = _read(spec.directory / aggregate_name)
    rows = [json.loads(line) for line in (spec.directory / rows_name).read_bytes().splitlines()]
    entry = {"label": f"{spec.name}/{mode}", "run": spec.name, "mode": mode, "rows": rows_name,
             "rows_sha256": sha256_file(spec.directory / rows_name), "aggregate": aggregate_name,
             "aggregate_sha256": sha256_file(spec.directory / aggregate_name),
             "run_id": aggregate["receipt"]["run"]["run_id"], "config_sha256": aggregate["receipt"]["retrieval"][
                 "config_sha256"]}
    return entry, aggregate, rows


def _rule_pairs(runs: list[Json], baseline: str | None) -> list[tuple[str, str]]:
    def between(later: Json, earlier: Json) -> list[tuple[str, str]]:
        chosen = later["mode_choice"] is not None or earlier["mode_choice"] is not None
        return [(f"{later['name']}/{a}", f"{earlier['name']}/{b}") for a in later["modes"] for b in earlier["modes"]
                if a == b or chosen]
    if baseline is None:
        return [p for j, later in enumerate(runs) for earlier in runs[:j] for p in between(later, earlier)]
    base = next(run for run in runs if run["name"] == baseline)
    return [p for run in runs if run is not base for p in between(run, base)]


def _seen(receipts: dict[str, Json], labels: tuple[str, str], created: str) -> str | None:
    """The specification's condition 5: earlier looks the arms' receipts date at or before the declaration."""
    counts: dict[str, int] = {}
    name = ""
    for label in labels:
        looks = receipts[label]["heldout_looks"]
        if looks is None:
            return f"{label}'s receipt names no held-out record, so no earlier look can be ruled out"
        name = looks["dataset"]["name"]
        counts[looks["record_id"]] = max(counts.get(looks["record_id"], 0),
                                         len([t for t in looks["earlier_looks_at"] if t <= created]))
    n = sum(counts.values())
    return None if n == 0 else (f"{n} earlier held-out look{'s' if n != 1 else ''} at {name} before the "
                                f"declaration at {created}, as the arms' receipts attest")


def declared_family(record: Json) -> tuple[str, Json] | None:
    """(field, family) a freeze record declares: its `hypotheses`, or an earlier record's one `hypothesis` as a family
    of one (its alpha the family's, tested two-sided)."""
    if record.get("hypotheses") is not None:
        return "hypotheses", record["hypotheses"]
    single = record.get("hypothesis")
    if single is None:
        return None
    member = {**{k: v for k, v in single.items() if k != "alpha"}, "sided": "two"}
    return "hypothesis", {"alpha": single["alpha"], "adjustment": "holm", "members": [member]}


def _member(run: Json, record: Json, declared: Json, runs: list[Json], receipts: dict[str, Json], split: str) -> Json:
    """One member's entry, its result left to the statistics."""
    a = f"{run['name']}/{declared['a']['mode']}"
    b_mode, b_digest = declared["b"]["mode"], declared["b"]["freeze_sha256"]
    b = next((f"{o['name']}/{b_mode}" for o in runs if o is not run and (o["freeze"] or {}).get("freeze_sha256")
              == b_digest and b_mode in o["modes"]), None)
    started = {label: receipt["run"]["started_at"] for label, receipt in receipts.items()}
    late = [f"{label} started at {started[label]}, not after the hypothesis was declared at {record['created_at']}"
            for label in (a, b) if label in started and not started[label] > record["created_at"]]
    if split != "heldout":
        reason = "a hypothesis is tested on the held-out split only"
    elif a not in started:
        reason = f"the declaring run {run['name']} has no arm in mode {declared['a']['mode']}"
    elif b is None:
        reason = f"no other run here was frozen as {b_digest} with an arm in mode {b_mode}"
    else:
        seen = _seen(receipts, (a, b), record["created_at"])
        reason = late[0] if late else seen or CONFIRMATORY
    return {"declaration": declared, "status": "confirmatory" if reason == CONFIRMATORY else "exploratory",
            "reason": reason, "pair": {"a": a, "b": b} if a in started and b is not None else None, "result": None}


def _family(run: Json, record: Json, runs: list[Json], receipts: dict[str, Json], split: str) -> Json | None:
    found = declared_family(record)
    if found is None:
        return None
    field, family = found
    return {"declared_by": run["name"], "freeze_sha256": record["freeze_sha256"], "freeze_field": field,
            "alpha": family["alpha"], "adjustment": "holm",
            "members": [_member(run, record, m, runs, receipts, split) for m in family["members"]]}


def declared_p(declared: Json, differences: list[float], sampled: stats.Draws) -> float | None:
    """The declared test's p, one-sided in the declared direction or two-sided, with the runner's statistics."""
    greater = declared["direction"] == "a_greater"
    if declared["test"] == "randomization":
        if declared["sided"] == "one":
            return stats.one_sided_randomization_test(differences, sampled.signs, greater=greater)[1]
        return stats.randomization_test(differences, sampled.signs)[1]
    if declared["sided"] == "one":
        return stats.one_sided_t_test(differences, greater=greater)
    return stats.t_test(differences)[1]


def hypothesis_results(family: Json, differences: dict[int, list[float]], sampled: stats.Draws) -> None:
    """Each confirmatory member's result (`differences` by member position), Holm over the whole family."""
    words = {"randomization": "paired randomization test", "t_test": "paired t-test"}
    p_values = {i: declared_p(family["members"][i]["declaration"], d, sampled) for i, d in differences.items()}
    adjusted = stats.holm([1.0 if (p := p_values.get(i)) is None else p for i in range(len(family["members"]))])
    for i, d in differences.items():
        member, p = family["members"][i], p_values[i]
        declared, mean = member["declaration"], stats.mean(d)
        holm_p = None if p is None else adjusted[i]
        significant = holm_p is not None and holm_p < family["alpha"]
        direction = {"a_greater": mean > 0, "a_less": mean < 0, "two_sided": True}[declared["direction"]]
        relation = {"a_greater": ">", "a_less": "<"}[declared["direction"]] if declared["sided"] == "one" else "!="
        member["result"] = {
            "metric": declared["metric"], "test": declared["test"], "sided": declared["sided"],
            "test_ran": f"{declared['sided']}-sided {words[declared['test']]}, H1: {member['pair']['a']} {relation} "
                        f"{member['pair']['b']}",
            "mean_difference": mean, "p_value": p, "holm_p_value": holm_p, "alpha": family["alpha"],
            "significant": significant, "in_declared_direction": direction, "supported": significant and direction}


def _scope(split: str, count: int, calibration_count: int, dated: list[tuple[Json, str | None]]) -> str:
    """The specification's scope; on held-out, the looks each arm's receipt dates at or before its run's freeze."""
    if split != "heldout":
        return {"calibration": "calibration queries only: the configurations were chosen on them, so every result "
                               "here is exploratory",
                "all": f"all {count} queries, including the {calibration_count} calibration queries the "
                       "configurations were chosen on"}[split]
    counts: dict[str, int] = {}
    name = ""
    for receipt, frozen_at in dated:
        looks = receipt["heldout_looks"]
        if looks is None or frozen_at is None:
            return (f"the {count} held-out queries; a run's receipt names no held-out record, so that they were "
                    "unseen before the freeze is not attested")
        name = looks["dataset"]["name"]
        counts[looks["record_id"]] = max(counts.get(looks["record_id"], 0),
                                         len([t for t in looks["earlier_looks_at"] if t <= frozen_at]))
    n = sum(counts.values())
    attested = "as the publisher's attested held-out record shows"
    if n == 0:
        return f"the {count} held-out queries, unseen before the freeze {attested}"
    looks = f"{n} earlier held-out look{'s' if n != 1 else ''}"
    return f"the {count} held-out queries, not unseen before the freeze: {looks} at {name}, {attested}"


def _pairs(runs: list[Json], baseline: str | None, families: list[Json]) -> list[tuple[str, str]]:
    """The rule's pairs; a declared hypothesis's pair oriented as declared, or appended when the rule lacks it."""
    pairs = _rule_pairs(runs, baseline)
    for hypothesis in (member for family in families for member in family["members"]):
        if hypothesis["pair"] is not None:
            a, b = hypothesis["pair"]["a"], hypothesis["pair"]["b"]
            if (b, a) in pairs:
                pairs[pairs.index((b, a))] = (a, b)
            elif (a, b) not in pairs:
                pairs.append((a, b))
    return pairs


def _interval(values: list[float], sampled: stats.Draws) -> Json:
    low, high = stats.bootstrap_interval(values, sampled.indices)
    return {"mean": stats.mean(values), "ci_low": low, "ci_high": high}


def _compared(pairs: list[tuple[str, str]], values: dict[str, dict[str, list[float]]], sampled: stats.Draws,
              families: list[Json]) -> list[Json]:
    confirmatory = {(h["pair"]["a"], h["pair"]["b"]) for family in families for h in family["members"]
                    if h["status"] == "confirmatory"}
    comparisons: list[Json] = [{"a": a, "b": b, "status": "confirmatory" if (a, b) in confirmatory else "exploratory",
                                "metrics": {m: stats.paired_difference(values[a][m], values[b][m], sampled)
                                            for m in METRICS}} for a, b in pairs]
    for metric in METRICS:
        adjusted = stats.holm([c["metrics"][metric]["randomization"]["p_value"] for c in comparisons])
        for comparison, p in zip(comparisons, adjusted, strict=True):
            comparison["metrics"][metric].update(holm_p_value=p, significant_after_holm=p < stats.ALPHA)
    for family in families:
        hypothesis_results(family, {
            i: [x - y for x, y in zip(values[h["pair"]["a"]][h["declaration"]["metric"]],
                                      values[h["pair"]["b"]][h["declaration"]["metric"]], strict=True)]
            for i, h in enumerate(family["members"]) if h["status"] == "confirmatory"}, sampled)
    return comparisons


def build(specs: list[RunSpec], split: str, where: Path, *, baseline: str | None = None,
          validated: bool = True, procedure: Procedure = DEFAULT) -> Json:
    """The document `python -m harness compare --split SPLIT --run ... --output-dir WHERE` writes."""
    runs, records, inputs, aggregates = [], {}, [], {}
    values: dict[str, dict[str, list[float]]] = {}
    query_ids: list[str] | None = None
    for spec in specs:
        run, records[spec.name] = _run(spec, split, where)
        runs.append(run)
        for mode in run["modes"]:
            entry, aggregates[entry["label"]], rows = _arm(spec, mode, split)
            inputs.append(entry)
            values[entry["label"]] = {m: [row["metrics"][m] for row in rows] for m in METRICS}
            query_ids = query_ids or [row["query_id"] for row in rows]
    assert query_ids is not None
    receipts = {label: aggregate["receipt"] for label, aggregate in aggregates.items()}
    hypotheses = [family for run in runs if (record := records[run["name"]]) is not None
                  and (family := _family(run, record, runs, receipts, split)) is not None]
    sampled = stats.draws(procedure.seed, len(query_ids), procedure.resamples, procedure.permutations)
    arms = {label: {m: _interval(v, sampled) for m, v in metrics.items()} for label, metrics in values.items()}
    comparisons = _compared(_pairs(runs, baseline, hypotheses), values, sampled, hypotheses)
    calibration_count = aggregates[inputs[0]["label"]]["receipt"]["split"]["calibration_count"]
    return {"schema": SCHEMA, "split": split, "scope": _scope(split, len(query_ids), calibration_count, [
                (receipts[e["label"]], (records[e["run"]] or {}).get("created_at")) for e in inputs]),
            "baseline": baseline, "query_count": len(query_ids), "query_ids_sha256": sha256_canonical(query_ids),
            "metrics": list(METRICS), "primary_metric": "ndcg_at_10", "runs": runs,
            "content": {k: receipts[inputs[0]["label"]]["corpus"]["payload_hashes"][k]
                        for k in ("documents", "queries", "qrels")},
            "fixtures": _fixtures(runs), "inputs": inputs,
            "inputs_validation": {"rule": VALIDATION_RULE, "validated": validated,
                                  "verdicts": {e["label"]: "ELIGIBLE" for e in inputs} if validated else None},
            "procedure": {**procedure.record(), "descriptions": {**stats.PROCEDURES, "holm_family": HOLM_FAMILY,
                                                                   **HYPOTHESIS_PROCEDURES}},
            "arms": arms, "comparisons": comparisons, "hypotheses": hypotheses}


def write(document: Json, where: Path) -> Path:
    entry = document["inputs"][0]
    dataset = entry["aggregate"].removesuffix(f"-{entry['mode']}-{document['split']}.aggregate.json")
    path = where / comparison_name(dataset, document["split"])
    path.write_bytes(json.dumps(document, ensure_ascii=False, allow_nan=False, indent=1).encode("utf-8") + b"\n")
    return path

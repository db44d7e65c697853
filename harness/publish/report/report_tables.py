"""The report's tables as data, so that the HTML and the Markdown versions show the very same numbers."""

from dataclasses import dataclass
from typing import Any

from harness.evaluation.comparison.inputs import METRICS
from harness.publish.report.report_data import (
    CUTOFFS,
    LANE_KINDS,
    TOP_DEPTH,
    ReportData,
    SplitData,
    curves,
    lane_counts,
)
from harness.publish.text.latency_notes import contention_flag
from harness.publish.text.report_text import (
    SPLIT_LABELS,
    interval,
    metric_label,
    number,
    optional,
    p_value,
    pair_label,
    signed,
    wins_ties_losses,
)


@dataclass(frozen=True)
class Table:
    id: str
    caption: str
    headers: list[str]
    rows: list[list[str]]  # the first cell of each row is its label; a row of its label alone heads a group of rows
    text_columns: tuple[int, ...] = ()  # columns of sentences, which wrap (the others are numbers, which do not)


def metrics_table(split: SplitData) -> Table:
    """Rows: metrics; columns: modes; a cell is the mean, then its 95% bootstrap interval when compared."""
    rows = []
    chosen = list(dict.fromkeys(name for mode in split.modes
                                for name in (split.aggregate(mode).get("measures") or {}).get("names", [])))
    for metric in (*METRICS, *chosen):  # the defaults, then each measure a run of the split chose by name
        cells = [metric_label(metric)]
        for mode in split.modes:
            aggregate = split.aggregate(mode)
            mean = aggregate["metrics"].get(metric, (aggregate.get("measures") or {}).get("means", {}).get(metric))
            stated = (split.comparison or {}).get("modes", {}).get(mode, {}).get(metric)
            if mean is None:
                cells.append("n/a")
            elif stated is None:
                cells.append(number(mean))
            else:
                cells.append(f"{number(mean)} {interval(stated['ci_low'], stated['ci_high'])}")
        rows.append(cells)
    what = "mean [95% paired-bootstrap interval]" if split.comparison is not None else "mean (no comparison yet)"
    return Table(f"metrics-{split.split}", f"Metrics per mode: {what}", ["metric", *split.modes], rows)


def latency_table(split: SplitData) -> Table:
    rows = []
    for mode in split.modes:
        aggregate = split.aggregate(mode)
        latency = aggregate["metrics"]["latency_ms"]
        rows.append([mode, contention_flag(aggregate), str(aggregate["row_count"]),
                     *(number(latency[k], 3) for k in ("p50", "p95", "max", "mean")),
                     str(aggregate["metrics"]["failures"])])
    return Table(f"latency-{split.split}", "Latency of the retrieval call (ms, this machine only), how it was "
                 "measured, and failures",
                 ["mode", "measured", "queries", "p50 ms", "p95 ms", "max ms", "mean ms", "failures"], rows,
                 text_columns=(1,))


def comparison_table(split: SplitData) -> Table | None:
    if split.comparison is None:
        return None
    rows = []
    for comparison in split.comparison["comparisons"]:
        stats = comparison["metrics"]["ndcg_at_10"]
        rows.append([pair_label(comparison), signed(stats["mean_difference"]),
                     interval(stats["ci_low"], stats["ci_high"], sign=True),
                     p_value(stats["randomization"]["p_value"]), p_value(stats["t_test"]["p_value"]),
                     p_value(stats["holm_p_value"]), optional(stats["effect_size"]), wins_ties_losses(stats),
                     "significant" if stats["significant_after_holm"] else "not significant"])
    return Table(f"comparison-{split.split}", "nDCG@10 differences (primary metric), paired over the same queries",
                 ["difference", "mean", "95% CI", "p (randomization)", "p (t-test)", "p (Holm)", "effect size d_z",
                  "wins / ties / losses", "after Holm, \u03b1 = 0.05"], rows)


def all_metrics_table(split: SplitData) -> Table | None:
    if split.comparison is None:
        return None
    rows = []
    for comparison in split.comparison["comparisons"]:
        for metric in METRICS:
            stats = comparison["metrics"][metric]
            rows.append([f"{pair_label(comparison)}, {metric_label(metric)}", signed(stats["mean_difference"]),
                         interval(stats["ci_low"], stats["ci_high"], sign=True),
                         p_value(stats["randomization"]["p_value"]), p_value(stats["holm_p_value"]),
                         wins_ties_losses(stats)])
    return Table(f"comparison-all-{split.split}", "Every metric's difference (Holm within each metric's family)",
                 ["difference, metric", "mean", "95% CI", "p (randomization)", "p (Holm)", "wins / ties / losses"],
                 rows)


def curves_table(split: SplitData) -> Table:
    modes = split.modes
    series = {mode: curves(split.rows(mode)) for mode in modes}
    rows = [[str(k), *(number(series[m]["success"][i]) for m in modes),
             *(number(series[m]["recall"][i]) for m in modes)] for i, k in enumerate(CUTOFFS)]
    return Table(f"curves-{split.split}", "Success@k and Recall@k, from each row's ranked ids and qrels",
                 ["k", *(f"Success@k {m}" for m in modes), *(f"Recall@k {m}" for m in modes)], rows)


def lanes_table(split: SplitData) -> Table | None:
    if "hybrid" not in split.modes:
        return None
    rows_of_hybrid = split.rows("hybrid")
    depth = split.candidate_depth()
    candidates = lane_counts(rows_of_hybrid, depth)
    top = lane_counts(rows_of_hybrid, TOP_DEPTH)
    kinds = LANE_KINDS[:3]
    rows = [[str(rank), *(str(candidates[rank][k]) for k in kinds), *(str(top[rank][k]) for k in LANE_KINDS)]
            for rank in CUTOFFS]
    rows.append(["all ranks", *(str(sum(candidates[r][k] for r in CUTOFFS)) for k in kinds),
                 *(str(sum(top[r][k] for r in CUTOFFS)) for k in LANE_KINDS)])
    return Table(f"lanes-{split.split}", f"Hybrid results by the lanes that ranked them: within each lane's top "
                 f"{depth} (the fusion's candidates, the declared candidate depth), and within each lane's own top 10",
                 ["rank", *(f"top {depth}: {k}" for k in kinds), *(f"top 10: {k}" for k in LANE_KINDS)], rows)


def verification_table(data: ReportData) -> Table | None:
    """Per split and mode, how the validator verified each lane and the fusion; None before validation."""
    if not data.verification:
        return None
    rows = []
    for split in data.splits:
        for entry in split.inputs:
            found = data.verification.get(entry.aggregate_sha256, {})
            rows.append([f"{SPLIT_LABELS[split.split]}, {entry.mode}",
                         *(found.get(name, "\u2014") for name in ("lexical", "dense", "fusion"))])
    return Table("verification", "What the independent validator verified, lane by lane (\u2014: the mode has no "
                 "such lane)", ["split, mode", "lexical lane", "dense lane", "fusion"], rows, text_columns=(1, 2, 3))


def _origin(source: dict[str, Any]) -> str:
    installed = source.get("distribution") or {}
    if installed.get("available"):
        return f"installed {installed['name']} {installed['version']} (files {installed['files_sha256']})"
    return f"commit {source['git'].get('commit')}"


def receipt_items(data: ReportData) -> list[tuple[str, list[str]]]:
    """(label, lines) for the receipt summary."""
    receipt: dict[str, Any] = data.receipt
    payload = receipt["corpus"]["payload_hashes"]
    system = receipt["system"]
    items = [
        ("System", [f"{system['name']} {system['version']} ({system['spec']})",
                    f"source {system['source']['sha256']}"]),
        ("Source", [_origin(receipt["source"]),
                    f"harness {receipt['source']['harness']['sha256']}"]),
        ("Corpus", [f"fixture {receipt['corpus']['fixture_sha256']}", f"documents {payload['documents']}",
                    f"queries {payload['queries']}", f"qrels {payload['qrels']}"]),
        ("Model", [f"{receipt['embedding']['model']} ({receipt['embedding']['dimensions']} dimensions)",
                   f"identity {receipt['embedding']['identity_sha256']}"]),
        ("Store", [f"store {receipt['store']['store_sha256']}", f"mapping {receipt['store']['mapping_sha256']}"]),
        ("Configuration", [f"{receipt['retrieval']['config_sha256']} (profile {receipt['profile']['name']})"]),
        ("Machine", [f"{receipt['machine']['cpu_model']}, {receipt['machine']['logical_cores']} logical cores, "
                     f"{receipt['machine']['os']}"]),
    ]
    if data.freeze is not None:
        items.append(("Freeze", [f"{data.freeze['freeze_sha256']}, created {data.freeze['created_at']}"]))
    for split in data.splits:
        label = SPLIT_LABELS[split.split]
        items.append((f"Rows, {label}", [f"{e.mode} {e.rows_sha256}" for e in split.inputs]))
        if split.comparison_path is not None:
            items.append((f"Comparison, {label}",
                          [f"{split.comparison_path.name} {split.comparison_sha256}"]))
    return items

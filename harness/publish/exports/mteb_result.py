"""An MTEB-format result file for each mode and split: what MTEB writes for its SciFact retrieval task.

MTEB writes one JSON per task and model: the task's name, the Hugging Face dataset's revision, and under `scores`
one list per split of `{metric: value, "main_score", "hf_subset", "languages"}` (main_score is nDCG@10 for
retrieval). The file here carries the receipt's own means under MTEB's metric names (recall_at_100 and ndcg_at_100
from the depth-100 rankings, when the rows carry them), and a `harness` block, which
MTEB ignores, saying whether the number is comparable to MTEB's SciFact score and, when not, why.

It is comparable only when the run measured what MTEB measures: the embedding model's dense ranking
(`vector_only`) of every SciFact test query, with the texts MTEB embeds (the `mteb-parity` profile: title + ' ' +
text, the plain query, no prefixes, no ceiling). Only then is the score filed under MTEB's `test` split; any
other run is filed under the harness's split name, which MTEB's leaderboard does not read.
"""

from typing import Any

from harness.evaluation.comparison.inputs import ModeInput
from harness.evaluation.measures.metrics import DEPTH_METRIC_KEYS

TASK_NAME = "SciFact"
HF_DATASET = "mteb/scifact"
# The dataset revision in MTEB's SciFact task metadata (current releases; earlier ones name
# 0228b52cf27578f30900b9e5271d331663a030d7).
HF_REVISION = "d56462d0e63a25450459c4f213e49ffdb866f7f9"
SCIFACT_IR_DATASETS_ID = "beir/scifact/test"
MTEB_METRICS = ("ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10", "map_at_10")
MAIN_SCORE = "ndcg_at_10"


def mteb_name(dataset: str, mode: str, split: str) -> str:
    return f"{dataset}-{mode}-{split}.mteb.json"


def _profile_reason(profile: dict[str, Any]) -> str | None:
    if not profile.get("is_contract"):
        return None
    ceiling = profile.get("max_code_points")
    return (f"the {profile['name']} profile embeds documents as {profile['document_prefix']!r} + the semantic text and "
            f"queries as {profile['query_prefix']!r} + the query, each cut at {ceiling} code points; MTEB embeds "
            "title + ' ' + text and the plain query, with no prefix and only the model's own truncation "
            "(the mteb-parity profile does that)")


def comparability(entry: ModeInput) -> list[str]:
    """Why the run's score is not MTEB's SciFact score; empty when it is."""
    receipt = entry.aggregate["receipt"]
    reasons = []
    if receipt["corpus"].get("ir_datasets_id") != SCIFACT_IR_DATASETS_ID:
        reasons.append(f"the dataset is {receipt['corpus']['contract']['name']}, not BEIR SciFact's test set")
    split = receipt["split"]
    if split["selected_count"] != split["total_count"]:
        reasons.append(f"the {split['name']} split holds {split['selected_count']} of the {split['total_count']} "
                       "test queries; MTEB averages over all of them")
    if entry.mode != "vector_only":
        reasons.append(f"{entry.mode} is not the embedding model's own dense ranking, which is what MTEB scores")
    profile_reason = _profile_reason(receipt["profile"])
    if profile_reason is not None:
        reasons.append(profile_reason)
    return reasons


def mteb_document(entry: ModeInput) -> dict[str, Any]:
    aggregate, receipt = entry.aggregate, entry.aggregate["receipt"]
    metrics = aggregate["metrics"]
    reasons = comparability(entry)
    scores = {metric: float(metrics[metric]) for metric in MTEB_METRICS + DEPTH_METRIC_KEYS if metric in metrics}
    split_key = "test" if not reasons else aggregate["split"]
    scifact = receipt["corpus"].get("ir_datasets_id") == SCIFACT_IR_DATASETS_ID  # the one task whose metadata is here
    return {
        "dataset_revision": HF_REVISION if scifact else None,
        "task_name": TASK_NAME if scifact else None,
        "mteb_version": None,  # not written by mteb: by the harness, from its receipts
        "scores": {split_key: [{**scores, "main_score": scores[MAIN_SCORE], "hf_subset": "default",
                                "languages": ["eng-Latn"]}]},
        "evaluation_time": None,
        "kg_co2_emissions": None,
        "harness": {
            "comparable_to_mteb": not reasons,
            "why_not_comparable": reasons,
            "hf_dataset": HF_DATASET if scifact else None,
            "ir_datasets_id": receipt["corpus"].get("ir_datasets_id"),
            "mode": entry.mode,
            "split": aggregate["split"],
            "query_count": aggregate["row_count"],
            "profile": receipt["profile"]["name"],
            "model": receipt["embedding"]["model"],
            "system": receipt["system"]["name"],
            "system_version": receipt["system"]["version"],
            "aggregate_sha256": entry.aggregate_sha256,
            "rows_sha256": entry.rows_sha256,
            "means": "the receipt's means over every query of the split; a failed query counts as 0",
        },
    }

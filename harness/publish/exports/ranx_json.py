"""ranx-readable run and qrels JSON: `{query_id: {doc_id: score}}` (ranx `Run.from_file` / `Qrels.from_file`, and
`Run.from_dict` / `Qrels.from_dict` on the loaded JSON).

ranx, like trec_eval, ranks each query's documents by score alone, so the run carries the TREC export's
rank-derived score (n - rank + 1 for a query with n results, `trec_export`): strictly decreasing in the receipt's
rank, so any tool that sorts by score sees the receipt's ranking whatever its tie rule. The original scores are in
the `.scores.tsv` file beside. A query that returned nothing has an empty object in the run. Rows that carry a
depth-100 ranking also give `<mode>-<split>.depth100.ranx.json` over it, by the same rule.
"""

import json
from collections.abc import Sequence
from typing import Any


def ranx_run_name(dataset: str, mode: str, split: str) -> str:
    return f"{dataset}-{mode}-{split}.ranx.json"


def ranx_depth_run_name(dataset: str, mode: str, split: str) -> str:
    return f"{dataset}-{mode}-{split}.depth100.ranx.json"


def ranx_depth_run_text(rows: Sequence[dict[str, Any]]) -> str:
    run = {}
    for row in rows:
        doc_ids = row["depth_ranking"]["doc_ids"]
        run[str(row["query_id"])] = {str(doc_id): len(doc_ids) - rank + 1 for rank, doc_id in enumerate(doc_ids, 1)}
    return _text(run)


def ranx_qrels_name(dataset: str, split: str) -> str:
    return f"{dataset}-{split}.qrels.json"


def _text(value: dict[str, dict[str, int]]) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


def ranx_run_text(rows: Sequence[dict[str, Any]]) -> str:
    run = {}
    for row in rows:
        results = row["results"]
        run[str(row["query_id"])] = {str(r["doc_id"]): len(results) - rank + 1
                                     for rank, r in enumerate(results, start=1)}
    return _text(run)


def ranx_qrels_text(rows: Sequence[dict[str, Any]]) -> str:
    return _text({str(row["query_id"]): {str(doc): int(grade) for doc, grade in sorted(row["qrels"].items())}
                  for row in rows})

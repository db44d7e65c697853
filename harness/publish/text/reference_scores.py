"""Published SciFact nDCG@10 figures from other tools, held as data, each with its protocol and its source, so a
reader can place the report's numbers; and why the contract's dense lane sits below MTEB's figure for its model.

None of these is measured here, and none is a bar the report checks: the quality bars of `pytest -m final` are
`harness/suite/quality_bars.py`, and `pytest -m parity` reproduces MTEB's figure under MTEB's own encoding. Each figure
averages over all 300 BEIR SciFact test queries; of the report's splits only the all-query one holds the same
queries.
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReferenceScore:
    tool: str  # who published it, and what was run
    ndcg_at_10: float
    protocol: str
    source: str  # where the figure is published, as text (the report loads nothing from elsewhere)


MTEB_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MTEB_MINILM = ReferenceScore(
    "MTEB: all-MiniLM-L6-v2, dense", 0.64508,
    "BEIR SciFact test, 300 queries; title + ' ' + text and the plain query, no role prefixes, no cut beyond the "
    "model's 256 tokens; exact cosine search",
    "MTEB's published SciFact result for the model (github.com/embeddings-benchmark/results); the harness's parity "
    "test (pytest -m parity) reproduces it under MTEB's encoding")
REFERENCES = (
    MTEB_MINILM,
    ReferenceScore(
        "bm25s: BM25, its defaults", 0.687,
        "BEIR SciFact test, 300 queries; bm25s's Lucene variant, k1 1.5, b 0.75; published as 68.7",
        "the NDCG@10 table of the bm25-benchmarks README (github.com/xhluca/bm25-benchmarks), which the bm25s README's "
        "comparison section points to"),
    ReferenceScore(
        "Pyserini: BM25, flat index", 0.6789,
        "BEIR v1.0.0 SciFact test, 300 queries; Lucene BM25, k1 0.9, b 0.4; title and text in one field",
        "Pyserini's BEIR regressions (castorini/pyserini, pyserini/2cr/beir.yaml, condition bm25-flat)"),
    ReferenceScore(
        "Pyserini: BM25, multifield index", 0.6647,
        "BEIR v1.0.0 SciFact test, 300 queries; Lucene BM25, k1 0.9, b 0.4; title and text as two fields, equally "
        "weighted",
        "Pyserini's BEIR regressions (castorini/pyserini, pyserini/2cr/beir.yaml, condition bm25-multifield)"),
)
SAME_QUERIES = ("Every reference averages over all 300 SciFact test queries; of the splits here only the all-query "
                "one holds the same queries (held-out and calibration are subsets of it), and none of these figures "
                "was measured by this harness.")


def dense_gap(receipt: dict[str, Any], all_query_ndcg: float | None) -> str | None:
    """Why the dense lane of a run under the contract sits below MTEB's figure for the same model, in one sentence; None
    when the fixture's model is not MTEB's reference model or the run used MTEB's encoding (mteb-parity)."""
    profile = receipt["profile"]
    if receipt["embedding"]["model"] != MTEB_MODEL or not profile.get("is_contract"):
        return None
    if all_query_ndcg is None:
        measured = "The dense lane's nDCG@10 here is not MTEB's figure"
    else:
        relation = "below" if all_query_ndcg < MTEB_MINILM.ndcg_at_10 else "not below"
        measured = (f"The dense lane (vector_only) scores {all_query_ndcg:.4f} on all 300 queries, {relation} MTEB's "
                    f"{MTEB_MINILM.ndcg_at_10:g} for the same model")
    return (f"{measured}, and is not meant to match it: the contract embeds documents as "
            f"{profile['document_prefix']!r} + title + ' ' + text and queries as {profile['query_prefix']!r} + the "
            f"query, each text cut at {profile['max_code_points']} code points, where MTEB embeds title + ' ' + text "
            "and the plain query with no prefix and only the model's 256-token cut. all-MiniLM-L6-v2 was not trained "
            "with these role "
            "prefixes, and the cut drops the end of longer abstracts; the mteb-parity profile, MTEB's encoding, "
            "reproduces MTEB's figure.")

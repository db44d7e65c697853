"""What the Milvus system is configured with: the collection's schema, analyzer, indexes and fusion.

The lexical lane is Milvus's BM25 function over the same text the built-in system indexes (title, a space, the
text), with the analyzer below; the dense lane a FLAT (exact) inner-product index over the fixture's unit vectors;
hybrid Milvus's own hybrid_search with its RRF ranker over both lanes at the candidate depth.
"""

from typing import Any

COLLECTION = "scifact"
ANALYZER: dict[str, Any] = {"tokenizer": "standard", "filter": [
    "lowercase", {"type": "stop", "stop_words": ["_english_"]}, {"type": "stemmer", "language": "english"}]}
BM25 = {"bm25_k1": 1.5, "bm25_b": 0.75}
RRF_K = 60
CANDIDATE_DEPTH = 100
EXTRA = 10  # asked beyond top_k, so that ties at the cut are broken by doc id, not by the engine's order
INSERT_BATCH = 256
URI_VARIABLE = "SCIFACT_MILVUS_URI"
TOKEN_VARIABLE = "MILVUS_TOKEN"  # read from the environment only: never a command line, configuration or receipt
LITE_FILE = "milvus.db"


def configuration(deployment: str) -> dict[str, Any]:
    return {"deployment": deployment, "collection": COLLECTION,
            "text": "title.strip() + ' ' + text.strip()",
            "lexical": {"function": "BM25", "analyzer": ANALYZER, "index": "SPARSE_INVERTED_INDEX", **BM25},
            "dense": {"index": "FLAT", "metric": "IP", "dtype": "float32"},
            "hybrid": {"ranker": "RRFRanker", "k": RRF_K, "candidate_depth": CANDIDATE_DEPTH},
            "ties": f"score descending, then doc_id ascending, over the engine's top_k + {EXTRA}",
            "lexical_score": "BM25 relevance, higher is better (Milvus Lite reports it as a negative distance)"}

"""Retrieval: the lexical (BM25) and dense (exact cosine) lanes, reciprocal rank fusion, the modes."""

"""The built-in system's indexes: BM25 (bm25s) with its tokenizer, the exact dense matrix, top-k with the tie rule."""

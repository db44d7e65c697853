"""Embedding: the semantic text of each document and query, the embedders, the vector cache and the vector files."""

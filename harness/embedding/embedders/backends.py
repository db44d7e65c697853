"""The embedding backends a fixture can be built with (a plain tuple: the parsers name them without importing one)."""

BACKENDS = ("local", "ollama")

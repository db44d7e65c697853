"""The fixture's vectors re-embedded by the verifier's own embedder and compared."""

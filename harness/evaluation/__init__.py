"""Evaluation: the split, metrics, runs, receipts, aggregates, artifacts, the freeze and comparisons."""

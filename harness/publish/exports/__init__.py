"""Exports for other tools: TREC runs and qrels, original scores, per-query CSVs."""

"""Exports for other tools: TREC and ranx runs and qrels, original scores, per-query CSVs, MTEB result files, the
summary table (CSV and JSON) and a LaTeX table."""

"""Exports for other tools: TREC and ranx runs and qrels, scores, CSVs, MTEB results, a summary and a LaTeX table."""

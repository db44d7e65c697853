"""The rows and the aggregate, recomputed.

Schemas, results, metrics, fusion evidence, the aggregate's means and latency summary, and the
contention verdict.
"""

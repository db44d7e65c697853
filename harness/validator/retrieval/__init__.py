"""The validator's own retrieval and metrics.

Its BM25, the dense scan, the declarable fusions (rrf, convex), the ranking rule, the live store's vectors and the
IR metrics; nothing here is the runner's code.
"""

"""What a run measures, and over which queries.

The per-query metrics and their means, the latency summary and how it was measured (the contention
verdict), the deterministic split, and the fixture's query vectors.
"""

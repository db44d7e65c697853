"""What a run measures, and over which queries.

The per-query metrics and their means, the latency summary and how it was measured (the contention
verdict), and the fixture's query vectors (the split itself is the contract's: harness.corpus.split).
"""

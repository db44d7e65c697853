"""Independent validator of SciFact evaluation artifacts.

It replays every ranking of every row from primary data (an independent BM25 over the fixture's text, the
fixture's query vectors against every vector of the live store, the built-in system's RRF of the replayed lanes),
exactly where the engine's float32 arithmetic reproduces and otherwise within a stated rounding bound; nothing is
sampled. A hybrid's fused scores are recomputed from its lane evidence under the fusion the system declares (rrf
or convex). It recomputes everything derived from the rows, the fixture and the live store, re-embeds the
fixture's texts (all of them with --full-embedding, else a sample drawn with fresh randomness), and reads
the store's run ledger. Latency, the machine identity and the ledger's history are attested, not proven,
and the report says so. It imports nothing from the rest of `harness`: only the standard library,
jsonschema, numpy, PyStemmer and (to re-embed) the embedding model's own library; never bm25s. The JSON
Schemas in harness/schemas/ are read as data. If it disagrees with the runner, the artifact is not
eligible for a claim.

    python -m harness.validator AGGREGATE [ROWS] [--fixture F] [--store-dir D] [--freeze F] [--json REPORT]
                                [--full-embedding | --no-embedding-check]
    python -m harness.validator --self-test
"""

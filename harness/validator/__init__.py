"""Independent validator of SciFact evaluation artifacts.

It recomputes everything it can from the raw rows, the corpus fixture, the live store files and the
receipts, and imports nothing from the rest of `harness`: only the standard library, jsonschema,
and (to re-embed a sample, when present) the embedding model's own library. The JSON Schemas in
harness/schemas/ are read as data. If it disagrees with the runner, the artifact is not eligible
for a claim.

    python -m harness.validator AGGREGATE [ROWS] [--fixture F] [--freeze F] [--json REPORT]
    python -m harness.validator --self-test
"""

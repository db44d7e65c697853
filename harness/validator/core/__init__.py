"""What every check uses.

Strict JSON, the schemas, digests, what one validation reads (the context), what the receipt declares
about the system, the harness source beside the validator, the report and the catalog of checks.
"""

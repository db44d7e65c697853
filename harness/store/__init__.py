"""The persisted store: SQLite fact database, BEIR-id mapping sidecar, lexical index, dense matrix."""

"""The built-in system's persisted store: SQLite facts, the BEIR-id mapping, the index files and the manifest."""

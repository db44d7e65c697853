"""The built-in system: a SQLite fact store with a bm25s lexical index and an exact numpy dense index."""

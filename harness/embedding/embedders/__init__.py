"""Embedders: one interface (`base`), two real backends (local and Ollama), chosen by `select`; none imported here."""

"""A run made outside the harness, evaluated from its file."""

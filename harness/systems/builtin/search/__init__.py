"""The built-in system's search: the lanes of each mode and reciprocal rank fusion."""

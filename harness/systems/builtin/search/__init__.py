"""The built-in system's search: the lanes of each mode and their reciprocal rank fusion (harness/systems/fusion.py)."""

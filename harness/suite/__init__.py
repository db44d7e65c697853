"""The SciFact suite as a pytest plugin (`pytest -p scifact_harness`).

Its options, session fixtures, held-out gate, quality bars and the evaluation tests themselves, usable from any
repository against any system."""

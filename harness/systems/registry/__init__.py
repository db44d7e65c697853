"""The systems a run can evaluate, found by name."""

"""Rankings the validator reads from a run file made outside the harness (its own reader)."""

"""Cost curves at scale: synthetic BEIR-shaped corpora of growing size, each system built, opened and searched in
a process of its own, the validator's replay timed on the same data (docs/scale.md)."""

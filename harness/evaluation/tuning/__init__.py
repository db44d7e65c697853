"""Evaluation while tuning: a run evaluated on measures by name, and a dataset's calibration split loaded.

`api.evaluate` (exposed as `harness.evaluate`) computes any measure `harness.evaluation.measures.named` reads, through
the runner's own definitions, over the judged queries; `calibration.calibration` (`harness.calibration`) loads the
calibration split's queries, judgements and corpus from the verified archive, and refuses the held-out split.
"""

"""A comparison, of a split's modes or between systems, recomputed from its rows with the validator's own statistics.

Between systems: evaluations of different systems or configurations, and the hypotheses declared at their freezes.
Its inputs are held to one experiment: one fixture and judgements; one system, store and freeze per run.
"""

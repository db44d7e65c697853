"""A comparison artifact recomputed from its rows with the validator's own statistics: of a split's modes, or between
systems (runs of different systems or configurations, with the hypotheses declared at their freezes).

Its inputs are held to one experiment: one fixture and judgements; one system, store and freeze per run.
"""

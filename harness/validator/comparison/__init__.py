"""A comparison artifact recomputed from its rows with the validator's own statistics.

Its inputs are held to one experiment: one fixture, judgements, system, store and freeze.
"""

"""The corpus: download the SciFact archive, verify it against the contract, parse the BEIR files, split the queries.

The calibration / held-out split is the contract's (its calibration count), so it lives here: `split`.
"""

"""A calibration sweep: every configuration of a declared grid evaluated on the calibration split.

Each configuration and mode is counted in the store's run ledger, so that the freeze binds how many configurations its
own was chosen from.
"""

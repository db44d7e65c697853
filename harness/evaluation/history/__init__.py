"""The record of what ran.

The store's append-only, hash-chained run ledger, and the per-user record of every held-out look.
"""

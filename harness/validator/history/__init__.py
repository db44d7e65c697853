"""The store's run ledger and the per-user held-out record, read by the validator itself."""

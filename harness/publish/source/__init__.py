"""The system's source in the bundle: the files the receipts hash, copied and checked against their sha256."""

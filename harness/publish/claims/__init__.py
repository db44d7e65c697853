"""CLAIMS.md, generated from the receipts and the validator's reports."""

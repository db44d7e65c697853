"""Stored verdicts: what a validation read and who validated, sealed with this machine's key.

A verdict is kept in the `validation/` folder of the aggregate's directory (or of the output directory a caller
names), keyed by the sha256 of every byte the validation read, the validator's own source and environment, and the
options that change the verdict; the full re-embedding of a fixture is kept once per fixture, verifier and
validator in the key's directory. Both are sealed with an HMAC whose key lives outside every output directory
(`key`); a record whose seal, bytes, validator or options do not match is never believed.
"""

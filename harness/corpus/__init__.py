"""The corpus: download the SciFact archive, verify it against the contract, parse the BEIR files."""

"""The dataset a run claims to be evaluated on, checked against the validator's own pins.

The fixture is written by whoever made the run, so it cannot vouch for itself. The validator ships the
pins of every dataset it knows (`pins/*.json`: the archive's member digests, the shape, the contract's
terms, the test judgements in full and the digests of the canonical documents, queries and semantic
texts) and holds every fixture to them, whatever the fixture says about itself. With the archive at hand it
also re-derives the content from the archive with its own reader.
"""

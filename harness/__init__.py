"""Receipt-bearing retrieval evaluation on BEIR SciFact."""

BUILDER_VERSION = "scifact-harness-builder-2"  # the fixture builder's, in every fixture it writes

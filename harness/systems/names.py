"""The names a system under test is chosen by: the built-in system's, and the entry-point group systems of their own
register in. Plain constants, so that the command line's parser (and its --help) imports no system."""

BUILTIN = "builtin"
RUN_FILE = "run-file"  # a run made outside the harness, read from its file (harness/systems/runfile/)
ENTRY_POINT_GROUP = "scifact_harness.systems"

"""The command line: `python -m harness` with its commands (build to export), errors, paths and summaries."""

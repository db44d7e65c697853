"""The command line: python -m harness build | run | freeze | bundle, its errors, paths and on-screen summaries."""

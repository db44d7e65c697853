"""Benchmarks that run outside the default test suite (`make bench-scale`)."""

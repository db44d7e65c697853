"""Comparisons: paired statistics of the modes of one split, written as a receipt bound to the rows they read."""

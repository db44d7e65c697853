"""The comparison procedure's defaults and floors (seed, bootstrap resamples, sign-flip permutations): plain numbers,
so that `compare`'s parser states them without importing the statistics."""

DEFAULT_SEED = 20261201
DEFAULT_RESAMPLES = DEFAULT_PERMUTATIONS = 10_000
MIN_RESAMPLES, MIN_PERMUTATIONS = 1000, 10000

"""The refusal of a bundle's environment: the harness, the distributions or the model here are not the ones the runs
bound."""

from harness.errors import RefusedError


class EnvironmentRefused(RefusedError):
    """The wheel or the lock a bundle would carry would not rebuild the environment the runs were made in."""

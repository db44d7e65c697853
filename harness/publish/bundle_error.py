"""The one refusal of `bundle`, shared by the modules that stage it."""

from harness.errors import RefusedError


class BundleError(RefusedError):
    """The bundle cannot be made: missing artifacts, an input that is not what the receipts bind, or an aggregate that
    fails validation."""

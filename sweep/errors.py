"""The sweep layer's error: a bad spec, database or executor, reported as a user error."""

from rlaccel.util.errors import RlaccelError

__all__ = ["SweepError"]


class SweepError(RlaccelError):
    """A sweep spec, its database or its executor is not usable (the message says why)."""

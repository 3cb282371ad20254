"""Errors of the RTL layer, in the project's exception tree (:mod:`util.errors`)."""

from rlaccel.util.errors import RlaccelError

__all__ = ["RtlError", "ToolMissing"]


class RtlError(RlaccelError):
    """A block, a conversion, a co-simulation or an HDL tool failed."""


class ToolMissing(RtlError):
    """An HDL tool (Icarus, Verilator, Yosys, MyHDL's VPI module) is not installed."""

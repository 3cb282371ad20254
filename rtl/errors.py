"""Errors of the RTL layer, in the project's exception tree (:mod:`util.errors`)."""

from rlaccel.util.errors import RlaccelError, SimError

__all__ = ["RtlError", "ToolMissing", "job_allowance", "job_overrun"]


class RtlError(RlaccelError):
    """A block, a conversion, a co-simulation or an HDL tool failed."""


class ToolMissing(RtlError):
    """An HDL tool (Icarus, Verilator, Yosys, MyHDL's VPI module) is not installed."""


def job_allowance(budget: int) -> int:
    """The cycles a job simulation (:mod:`rtl.jobs`, :mod:`rtl.verilator.jobs`) gives a job
    expected to take about ``budget`` cycles before it gives up: four times that plus 64."""
    return 4 * budget + 64


def job_overrun(what: str, task: str, spent: int, budget: int) -> SimError:
    """The error of a job on the RTL ``what`` that ran ``spent`` cycles, past its
    :func:`job_allowance`, without finishing ``task``."""
    return SimError(f"the RTL {what} did not finish {task} in {spent} cycles "
                    f"(expected about {budget})")

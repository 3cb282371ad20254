"""Simulated time of every RTL back end: picoseconds, the clock's period the architecture's.

MyHDL, Icarus (through MyHDL's VPI module: :data:`ICARUS_TIMESCALE`), Verilator and cocotb
all run a block at ``1ps`` resolution with the clock of its machine's
architecture (``[machine] clock_mhz``), so a waveform's time axis is the chip's: a cycle of
the ADHDP chip at 175 MHz is 5,714 ps. The half period is rounded to a whole picosecond
(a period can be one picosecond off the exact one); the clock rises first at one half
period, falls at one period, and so on. A driver's ``delay(1)`` (letting combinational
outputs settle after it set its inputs) is one picosecond.
"""

from __future__ import annotations

__all__ = ["TIMESCALE", "ICARUS_TIMESCALE", "UNIT", "half_period_ps"]

#: the Verilog timescale a block is converted with for Verilator
TIMESCALE = "1ps/1ps"
#: ... and for Icarus under MyHDL's VPI module, which puts Verilog time at a thousand times
#: MyHDL's to leave room for its delta cycles: a time unit of MyHDL is then one picosecond
#: (the Icarus waveform counts femtoseconds; a signal driven from MyHDL changes a few
#: femtoseconds after its edge)
ICARUS_TIMESCALE = "1ps/1fs"
#: the unit of simulated time (MyHDL's time steps, cocotb's Timer, VCD and FST files)
UNIT = "ps"


def half_period_ps(prm) -> int:
    """Half the clock period of a block's parameters' architecture (``prm.arch``), in whole
    picoseconds (at least 2, so that ``delay(1)`` falls inside a half period)."""
    mhz = prm.arch.knobs.clock_mhz
    return max(2, round(500_000 / mhz))

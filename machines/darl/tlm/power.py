"""The accelerator's power, from the only figures the seed gives (seed 004, Table 2, §6.5).

The seed estimates the kernel's power with Xilinx XPE, host excluded, and reports it only
through throughput and efficiency: DARL1 36,597.1 IPS at 5,256.3 IPS/W and DARL8
187,972.9 IPS at 11,053.7 IPS/W (each the mean of CartPole and LunarLander), i.e. 6.96 W and
17.01 W ("less than 20 Watt", abstract). A straight line through the two points,
``P(n) = static + per_agent * n``, is the model (5.53 W + 1.43 W per agent; each agent brings
its HBM channel, which §6.5 names as the reason the power exceeds an ASIC's). Energy of an
iteration is ``P(n) * cycles / clock``.
"""

from __future__ import annotations

from rlaccel.util.errors import ArchError

__all__ = ["TABLE2", "PowerModel", "TABLE2_POWER"]

#: Table 2: agents -> (IPS, IPS/W)
TABLE2 = {1: (36597.1, 5256.3), 8: (187972.9, 11053.7)}


class PowerModel:
    """``P(n) = static_w + per_agent_w * n`` watts for ``n`` agents."""

    def __init__(self, static_w: float, per_agent_w: float):
        if not static_w >= 0 or not per_agent_w >= 0:
            raise ArchError(f"power model: watts must be >= 0, not {static_w!r}, "
                            f"{per_agent_w!r}")
        self.static_w, self.per_agent_w = float(static_w), float(per_agent_w)

    @classmethod
    def through(cls, points: dict) -> "PowerModel":
        """The line through two ``agents -> (IPS, IPS/W)`` points."""
        if len(points) != 2:
            raise ArchError(f"power model: two points define the line, not {len(points)}")
        (n1, (i1, e1)), (n2, (i2, e2)) = sorted(points.items())
        p1, p2 = i1 / e1, i2 / e2
        slope = (p2 - p1) / (n2 - n1)
        return cls(p1 - slope * n1, slope)

    def watts(self, agents: int) -> float:
        if isinstance(agents, bool) or not isinstance(agents, int) or agents < 1:
            raise ArchError(f"power model: agents must be a positive integer, not {agents!r}")
        return self.static_w + self.per_agent_w * agents

    def ips_per_watt(self, ips: float, agents: int) -> float:
        return ips / self.watts(agents)

    def iteration_joules(self, cycles: int, clock_mhz: float, agents: int) -> float:
        """Energy of one kernel iteration of ``cycles`` at ``clock_mhz`` with ``agents``."""
        if not clock_mhz > 0:
            raise ArchError(f"a clock of {clock_mhz!r} MHz is not positive")
        return self.watts(agents) * cycles / (clock_mhz * 1e6)


#: the model through Table 2's two points
TABLE2_POWER = PowerModel.through(TABLE2)

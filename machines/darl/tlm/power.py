"""The DARL paper's power figures, for comparison only (Table 2, section 6.5).

The paper estimates the kernel's power with Xilinx XPE, host excluded, and reports it only
through throughput and efficiency: DARL1 36,597.1 IPS at 5,256.3 IPS/W and DARL8
187,972.9 IPS at 11,053.7 IPS/W (each the mean of CartPole and LunarLander), i.e. 6.96 W and
17.01 W ("less than 20 Watt", abstract). These are what the run's power is compared with;
the run's power is the cost model's (:mod:`rlaccel.tlm.cost`: the simulated energy over the
simulated time, ``darl.toml``'s ``[technology]``), never a line through them.
"""

from __future__ import annotations

from rlaccel.util.errors import ArchError

__all__ = ["TABLE2", "paper_watts", "compare"]

#: Table 2: agents -> (IPS, IPS/W)
TABLE2 = {1: (36597.1, 5256.3), 8: (187972.9, 11053.7)}


def paper_watts(agents: int) -> float | None:
    """The watts Table 2 implies for ``agents`` (IPS over IPS/W), None where it has none."""
    if isinstance(agents, bool) or not isinstance(agents, int) or agents < 1:
        raise ArchError(f"power: agents must be a positive integer, not {agents!r}")
    row = TABLE2.get(agents)
    return row[0] / row[1] if row else None


def compare(watts: float, agents: int) -> dict:
    """The model's watts beside Table 2's, with the relative error (None without a row)."""
    paper = paper_watts(agents)
    return {"watts": watts, "paper_watts": paper,
            "error": (watts - paper) / paper if paper else None}

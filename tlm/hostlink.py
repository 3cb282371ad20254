"""The host link: the interface between the accelerator and the host that runs the plant.

``cc.host`` hands the output buffer to the link; the host driver (``programs/<family>/
host.py``) steps the environment and answers with the words to write back. The link costs
``latency`` cycles each way plus the words at ``words_per_cycle``; the host's own compute
time is ``host_cycles`` (0: the plant answers at once; set it to model a real-time plant).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import Protocol

import numpy as np

__all__ = ["Host", "HostLink"]


class Host(Protocol):
    """What a host driver provides to the link."""

    def exchange(self, out: np.ndarray) -> np.ndarray:
        """Take the accelerator's output words (raw), return the reply words (raw)."""

    @property
    def finished(self) -> bool:
        """True once the host has told the program to stop."""


@dataclass
class HostLink:
    """Latency and bandwidth of the host interface, and the transfers it carried."""

    host: Host
    latency: int = 50
    words_per_cycle: float = 1.0
    host_cycles: int = 0
    exchanges: int = 0
    words_out: int = 0
    words_in: int = 0
    cycles: int = 0

    def transfer_cycles(self, words: int) -> int:
        return self.latency + ceil(words / self.words_per_cycle)

    def exchange(self, out: np.ndarray, nin: int) -> tuple[np.ndarray, int]:
        """Send ``out``, get the reply; returns (reply words, cycles the exchange took)."""
        reply = np.asarray(self.host.exchange(out))
        if reply.shape != (nin,):
            from isa.errors import SimError
            raise SimError(f"host link: the host answered {reply.shape} words, the program "
                           f"expects {nin}")
        cycles = (self.transfer_cycles(len(out)) + self.host_cycles
                  + self.transfer_cycles(nin))
        self.exchanges += 1
        self.words_out += len(out)
        self.words_in += nin
        self.cycles += cycles
        return reply, cycles

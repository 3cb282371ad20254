"""Chrome/Perfetto trace of instructions and host-link transactions (``--trace FILE``).

Events use the JSON trace format (``chrome://tracing``, https://ui.perfetto.dev): one complete
event per instruction on the "datapath" track (its stall as a separate event), one per host
exchange on the "host link" track. Time stamps are microseconds of simulated time. A long run
is cut after ``max_events`` events (the file says so in its metadata).
"""

from __future__ import annotations

import json
from pathlib import Path

from assembler.rlb import atomic_write

__all__ = ["ChromeTrace"]


class ChromeTrace:
    def __init__(self, clock_mhz: float, max_events: int = 200_000):
        self.us = 1.0 / clock_mhz
        self.max_events = max_events
        self.events: list[dict] = []
        self.dropped = 0

    def _add(self, ev: dict) -> None:
        if len(self.events) < self.max_events:
            self.events.append(ev)
        else:
            self.dropped += 1

    def instruction(self, pc: int, mnemonic: str, start: int, busy: int, stall: int) -> None:
        if stall:
            self._add({"name": "stall", "ph": "X", "pid": 1, "tid": 1, "cat": "stall",
                       "ts": (start - stall) * self.us, "dur": stall * self.us,
                       "args": {"pc": pc}})
        self._add({"name": mnemonic, "ph": "X", "pid": 1, "tid": 1, "cat": "instruction",
                   "ts": start * self.us, "dur": busy * self.us, "args": {"pc": pc}})

    def transaction(self, name: str, start: int, cycles: int, words_out: int,
                    words_in: int) -> None:
        self._add({"name": name, "ph": "X", "pid": 1, "tid": 2, "cat": "transaction",
                   "ts": start * self.us, "dur": cycles * self.us,
                   "args": {"words_out": words_out, "words_in": words_in}})

    def write(self, path: str | Path) -> None:
        meta = [{"name": "thread_name", "ph": "M", "pid": 1, "tid": 1,
                 "args": {"name": "datapath"}},
                {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2,
                 "args": {"name": "host link"}}]
        doc = {"traceEvents": meta + self.events, "displayTimeUnit": "ns",
               "otherData": {"dropped_events": self.dropped, "max_events": self.max_events}}
        atomic_write(path, json.dumps(doc))

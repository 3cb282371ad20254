"""The in-order scoreboard every block's test bench uses (STYLE.md item 9).

A test bench is a driver, a monitor, a predictor and this checker (:mod:`rtl.bench`). A
:class:`Txn` carries what is applied and what the predictor (the machine's functional model)
expects; when the driver applies it, the harness hands it to :meth:`Scoreboard.expect`, and
what the block gives back goes to :meth:`Scoreboard.observe`, which compares it with the
oldest pending transaction, bit for bit. A mismatch names the opcode, the operands, the
expected and actual values and the cycle.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Txn", "Mismatch", "Scoreboard"]


@dataclass
class Txn:
    """One transaction: what is applied and what the predictor says comes out."""

    opcode: str
    operands: dict[str, Any]
    expected: dict[str, Any] = field(default_factory=dict)
    cycle: int = -1                     # the cycle the driver applied it
    stimulus: Any = None                # bench-specific: how the driver applies it


def _fmt(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


@dataclass
class Mismatch:
    """A transaction whose outputs differ from the prediction."""

    block: str
    txn: Txn
    actual: dict[str, Any]
    cycle: int

    def __str__(self) -> str:
        keys = [k for k in self.txn.expected if self.actual.get(k) != self.txn.expected[k]]
        if not keys:                       # a transaction that never came out
            keys = list(self.txn.expected)
        exp = {k: self.txn.expected[k] for k in keys}
        act = {k: self.actual.get(k, "none") for k in keys}
        return (f"{self.block}: {self.txn.opcode} ({_fmt(self.txn.operands)}) applied at "
                f"cycle {self.txn.cycle}: expected {_fmt(exp)}, got {_fmt(act)} at cycle "
                f"{self.cycle}")


class Scoreboard:
    """In-order checker: predictions queue up, observations are compared with the oldest."""

    def __init__(self, block: str, *, keep: int = 20):
        self.block = block
        self.pending: deque[Txn] = deque()
        self.checked = 0
        self.mismatch_count = 0
        self.mismatches: list[Mismatch] = []   # the first ``keep`` of them
        self.keep = keep

    def expect(self, txn: Txn) -> None:
        self.pending.append(txn)

    def observe(self, actual: dict[str, Any], cycle: int) -> bool:
        """Compare ``actual`` with the oldest pending prediction; True when they agree."""
        if not self.pending:
            self._record(Mismatch(self.block, Txn("(none)", {}, {}), actual, cycle))
            return False
        txn = self.pending.popleft()
        self.checked += 1
        if all(actual.get(k) == v for k, v in txn.expected.items()):
            return True
        self._record(Mismatch(self.block, txn, actual, cycle))
        return False

    def finish(self, cycle: int) -> None:
        """Predictions never observed are mismatches too."""
        while self.pending:
            txn = self.pending.popleft()
            self.checked += 1
            self._record(Mismatch(self.block, txn, {}, cycle))

    def _record(self, m: Mismatch) -> None:
        self.mismatch_count += 1
        if len(self.mismatches) < self.keep:
            self.mismatches.append(m)

    @property
    def ok(self) -> bool:
        return self.mismatch_count == 0

"""Offering a layer's rows to the OSEL encoder (:mod:`.osel`) a row a cycle, as its bench and
its transactor both do: a MyHDL generator to ``yield from`` inside a driver."""

from __future__ import annotations

from typing import Callable

from myhdl import delay

__all__ = ["feed_rows"]


def feed_rows(s: dict, clk, rows: list[int], cycles: Callable[[], int],
              limit: int | None = None):
    """Hold ``row_valid`` with each row's group until the encoder takes it; return each
    row's kind (``hit``/``miss``/``none``), the cycle each row was taken (and the cycle the
    next could have been) and each row's index-list write (``(address, data)`` or None).
    ``limit``: stop offering at that cycle (a bench's guard against a stuck encoder)."""
    kinds, takes, il = [], [], []
    i = 0
    while limit is None or cycles() < limit:
        s["row_valid"].next = i < len(rows)
        if i < len(rows):
            s["row_g"].next = rows[i]
        yield delay(1)
        ready = bool(s["ready"].val)
        if i == len(rows) and ready:
            takes.append(cycles())          # the cycle the next row could be taken
            break
        take = ready and i < len(rows)
        now = cycles()
        yield clk.negedge
        if take:
            takes.append(now)
            kinds.append("hit" if s["hit"].val else "miss" if s["miss"].val else "none")
            il.append((int(s["il_addr"].val), int(s["il_data"].val))
                      if s["il_we"].val else None)
            i += 1
    s["row_valid"].next = False
    return kinds, takes, il

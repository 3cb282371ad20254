"""Encoding a layer on the OSEL encoder (:mod:`.osel`), as its bench and its transactor both
do: generators to ``yield from`` in a driver (``io``: see :mod:`rtl.drive`).
"""

from __future__ import annotations

from myhdl import delay

from rlaccel.rtl.signals import pack

__all__ = ["encode_layer"]


def encode_layer(io, col_idx: list, rows: list, index_bits: int, slots: int,
                 budget: int | None = None):
    """``start`` with the columns' max indexes, the rows a cycle each when ``ready``, then
    every slot of the sparse row memory read back. Returns each row's kind, its cycles (from
    its take to the next ``ready``), the index list (a row's write, or None) and the tuples by
    slot (bitvector as an int, workload, max index). ``budget``: stop offering rows that many
    cycles after ``start`` (a bench's guard against a stuck encoder)."""
    s = io.ports
    s["start"].next = True
    s["cols"].next = len(col_idx)
    s["col_idx"].next = pack(col_idx, index_bits)
    s["row_valid"].next = False
    yield io.clk.negedge
    s["start"].next = False
    limit = None if budget is None else io.cycles + budget
    kinds, takes, il = yield from _feed_rows(io, rows, limit)
    tuples = {}
    for slot in range(slots):
        s["rd_slot"].next = slot
        yield delay(1)
        if s["rd_valid"].val:
            tuples[slot] = (int(s["rd_bitvector"].val), int(s["rd_workload"].val),
                            int(s["rd_index"].val))
    return {"kinds": kinds, "cycles": [b - a for a, b in zip(takes, takes[1:])],
            "index_list": [e[1] if e and e[0] == k else None for k, e in enumerate(il)],
            "tuples": tuples}


def _feed_rows(io, rows: list[int], limit: int | None = None):
    """Hold ``row_valid`` with each row's group until the encoder takes it; return each
    row's kind (``hit``/``miss``/``none``), the cycle each row was taken (and the cycle the
    next could have been) and each row's index-list write (``(address, data)`` or None).
    ``limit``: stop offering at that cycle."""
    s = io.ports
    kinds, takes, il = [], [], []
    i = 0
    while limit is None or io.cycles < limit:
        s["row_valid"].next = i < len(rows)
        if i < len(rows):
            s["row_g"].next = rows[i]
        yield delay(1)
        ready = bool(s["ready"].val)
        if i == len(rows) and ready:
            takes.append(io.cycles)         # the cycle the next row could be taken
            break
        take = ready and i < len(rows)
        now = io.cycles
        yield io.clk.negedge
        if take:
            takes.append(now)
            kinds.append("hit" if s["hit"].val else "miss" if s["miss"].val else "none")
            il.append((int(s["il_addr"].val), int(s["il_data"].val))
                      if s["il_we"].val else None)
            i += 1
    s["row_valid"].next = False
    return kinds, takes, il

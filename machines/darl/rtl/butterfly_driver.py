"""Running a reduction on DARL's butterfly network (:mod:`.butterfly`), as its bench and its
transactor both do: generators to ``yield from`` in a driver (``io``: see :mod:`rtl.drive`).
A beat is ``prm.width`` signed words side by side (:func:`rtl.signals.pack`).
"""

from __future__ import annotations

from rlaccel.rtl.drive import run_to_done, write
from rlaccel.rtl.signals import pack, unpack
from rlaccel.machines.darl.rtl.params import DarlParams

__all__ = ["load", "reduce", "read_back"]


def load(io, shards: list, prm: DarlParams):
    """Every agent's shard into its buffer, a beat a cycle."""
    W = prm.width
    yield from write(io, "ld_we", ({"ld_agent": a, "ld_beat": b,
                                    "ld_data": pack(shard[b * W:(b + 1) * W], prm.word_bits)}
                                   for a, shard in enumerate(shards)
                                   for b in range(prm.beats(len(shard)))))


def reduce(io, words: int, average: bool, nstages: int, prm: DarlParams):
    """``start`` a reduction of the first ``words`` words among ``2**nstages`` agents and
    wait for ``done``: returns the cycles between them (None when ``done`` did not come) and
    the saturations."""
    s = io.ports
    s["start"].next = True
    s["words"].next = words
    s["average"].next = average
    s["nstages"].next = nstages
    elapsed = yield from run_to_done(io, 4 * (prm.stages + 1) * (prm.entries + 4))
    return (None if elapsed is None else elapsed - 1), int(s["sats"].val)


def read_back(io, agents: int, words: int, prm: DarlParams):
    """The first ``words`` words of agents ``0 .. agents - 1``'s buffers, a beat a cycle
    through ``rd_*``: one list of signed words per agent."""
    s = io.ports
    rows = []
    for a in range(agents):
        row = []
        for b in range(prm.beats(words)):
            s["rd_en"].next = True
            s["rd_agent"].next = a
            s["rd_beat"].next = b
            yield io.clk.negedge
            row += unpack(s["rd_data"].val, prm.word_bits, prm.width)
        rows.append(row[:words])
    s["rd_en"].next = False
    return rows

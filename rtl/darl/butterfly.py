"""DARL's butterfly all-reduce network (seed 004, section 4.2, Fig. 7, eq. 19-22).

A network of ``n = 2**K`` agents (a reduction among the first ``2**k`` of them uses stages
``0 .. k-1``), each with a reduction buffer of ``entries`` beats of ``width`` words. A
reduction runs the k stages one after another; in stage ``s`` every agent ``i`` reads beat
``b`` of its own buffer and, over the link, of agent ``i XOR 2**s``'s (the link register, one
cycle), then adds the two -- the lower agent's words first, saturating -- and writes the sum
back into its buffer at ``b`` (eq. 20-21). A stage streams its ``ceil(words / width)`` beats
one a cycle and ends when its last sum is written, so it takes ``HOP_LATENCY +
ceil(words / width)`` cycles, the form of :func:`tlm.families.darl.allreduce.allreduce_cycles`
with ``latency = HOP_LATENCY`` (the link register) and ``per_beat = 1``. With ``average``
the last stage also divides by n (eq. 22): an arithmetic shift by k with one round half up,
``(sum + 2**(k-1)) >> k``, which is the format's ``mul`` by ``1/n = 2**-k`` exactly.
Every agent ends with the same words, bit for bit.

``start`` is sampled in cycle 0; ``done`` is high in the cycle after the last write, cycle
``k * (HOP_LATENCY + beats) + 1``.
"""

from __future__ import annotations

from myhdl import Signal, always_seq, block, intbv

from ..params import bits_for, sig_signed, sig_unsigned
from .params import DarlParams

__all__ = ["darl_butterfly", "butterfly_signals", "HOP_LATENCY"]

#: cycles a stage adds to its beats: the link register between the buffers and the adders
HOP_LATENCY = 1


@block
def darl_butterfly(clk, rst, ld_we, ld_agent, ld_beat, ld_lane, ld_data, start, words,
                   nstages, average, done, sats, rd_agent, rd_beat, rd_lane, rd_data, *,
                   prm: DarlParams):
    """The n-agent butterfly network with the agents' reduction buffers.

    clk -- in, clock
    rst -- in, synchronous reset
    ld_we -- in, write one word of an agent's buffer (between reductions)
    ld_agent -- in, the agent
    ld_beat -- in, the beat of the buffer
    ld_lane -- in, the word of the beat (word index = beat * width + lane)
    ld_data -- in, the word
    start -- in, begin a reduction of the first ``words`` words of every buffer
    words -- in, words per agent (1 .. buffer_words)
    nstages -- in, with start: log2 of the agents taking part (agents 0 .. 2**nstages - 1;
               the others keep their buffers)
    average -- in, with start: divide the sum by n in the last stage
    done -- out, high for one cycle when every buffer holds the result
    sats -- out, saturated words of the reduction so far (cleared by start)
    rd_agent -- in, an agent whose buffer to read
    rd_beat -- in, a beat
    rd_lane -- in, a word of the beat
    rd_data -- out, that word, registered (read the cycle after the address)
    """
    n, K, W, E = prm.agents, prm.stages, prm.width, prm.entries
    B = prm.word_bits
    MAXR, MINR = prm.dt.max_raw, prm.dt.min_raw
    mem = [sig_signed(B) for _ in range(n * W * E)]
    lo = [sig_signed(B) for _ in range(n * W)]
    hi = [sig_signed(B) for _ in range(n * W)]
    running = sig_unsigned(0)
    avg = sig_unsigned(0)
    stage = Signal(intbv(0, min=0, max=max(K, 1)))
    beat = Signal(intbv(0, min=0, max=E + 1))
    v1 = sig_unsigned(0)
    a1 = Signal(intbv(0, min=0, max=E + 1))
    count = Signal(intbv(0, min=0, max=prm.buffer_words + 1))
    kk = Signal(intbv(0, min=0, max=K + 1))
    used = Signal(intbv(0, min=0, max=n + 1))

    @always_seq(clk.posedge, reset=rst)
    def control():
        total = intbv(0, min=2 * MINR, max=2 * MAXR + 2)
        r = intbv(0, min=2 * MINR, max=2 * MAXR + 2)      # room for r + half
        half = intbv(0, min=0, max=n)
        ns = intbv(0, min=0, max=n * W + 1)
        done.next = 0
        if start:
            stage.next = 0
            beat.next = 0
            count.next = words
            avg.next = average
            kk.next = nstages
            used.next = 1 << nstages
            v1.next = 0
            sats.next = 0
            if nstages == 0:
                done.next = 1
            else:
                running.next = 1
        elif running:
            if beat * W < count:                   # read a beat: own and partner's words
                for i in range(n):
                    for lane in range(W):
                        lo[i * W + lane].next = mem[((i & ~(1 << stage)) * W + lane) * E + beat]
                        hi[i * W + lane].next = mem[((i | (1 << stage)) * W + lane) * E + beat]
                v1.next = 1
                a1.next = beat
                beat.next = beat + 1
            else:
                v1.next = 0
            if v1:                                 # add and write the beat read last cycle
                ns[:] = 0
                for i in range(n):
                    for lane in range(W):
                        total[:] = lo[i * W + lane] + hi[i * W + lane]
                        if total[B] != total[B - 1]:          # out of range: saturate
                            if total[B]:
                                r[:] = MINR
                            else:
                                r[:] = MAXR
                            if a1 * W + lane < count and i < used:
                                ns[:] = ns + 1
                        else:
                            r[:] = total[B:].signed()
                        if avg and stage == kk - 1:           # / 2**kk, round half up
                            half[:] = 1 << (kk - 1)
                            r[:] = (r + half) >> kk
                        if i < used:
                            mem[(i * W + lane) * E + a1].next = r[B:].signed()
                sats.next = sats + ns
                if beat * W >= count:              # the stage's last sum is written now
                    if stage == kk - 1:
                        running.next = 0
                        done.next = 1
                    else:
                        stage.next = stage + 1
                        beat.next = 0
        elif ld_we:
            mem[(ld_agent * W + ld_lane) * E + ld_beat].next = ld_data

    @always_seq(clk.posedge, reset=rst)
    def read():
        rd_data.next = mem[(rd_agent * W + rd_lane) * E + rd_beat]

    return control, read


def butterfly_signals(prm: DarlParams) -> dict:
    """Fresh port signals of the network (clk and rst excluded)."""
    B = prm.word_bits
    AB = bits_for(max(prm.agents - 1, 1))
    EB, LB = bits_for(prm.entries - 1), bits_for(prm.width - 1)
    return {"ld_we": sig_unsigned(0), "ld_agent": sig_unsigned(AB),
            "ld_beat": sig_unsigned(EB), "ld_lane": sig_unsigned(LB), "ld_data": sig_signed(B),
            "start": sig_unsigned(0),
            "words": Signal(intbv(1, min=0, max=prm.buffer_words + 1)),
            "nstages": Signal(intbv(0, min=0, max=prm.stages + 1)),
            "average": sig_unsigned(0), "done": sig_unsigned(0),
            "sats": sig_unsigned(bits_for(prm.agents * prm.buffer_words * max(prm.stages, 1))),
            "rd_agent": sig_unsigned(AB), "rd_beat": sig_unsigned(EB),
            "rd_lane": sig_unsigned(LB), "rd_data": sig_signed(B)}

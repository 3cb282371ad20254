"""DARL's butterfly all-reduce network (the DARL paper, section 4.2, Fig. 7, eq. 19-22).

A network of ``n = 2**K`` agents (a reduction among the first ``2**k`` of them uses stages
``0 .. k-1``), each with a reduction buffer of ``entries`` beats of ``width`` words. A
reduction runs the k stages one after another; in stage ``s`` every agent ``i`` reads beat
``b`` of its own buffer and, over the link, of agent ``i XOR 2**s``'s (the link register,
one cycle), then adds the two -- the lower agent's words first, saturating -- and writes the
sum back into its buffer at ``b`` (eq. 20-21). The two agents of a pair add the same two
words in the same order, so the block reads and adds them once per pair and writes the sum
into both buffers (each saturation counts for both agents). A buffer is a memory of beats,
``width`` words each (word ``l`` of a beat in bits ``[l B + B - 1 : l B]``). A stage streams
its ``ceil(words / width)`` beats one a cycle and ends when its last sum is written, so it
takes ``HOP_LATENCY + ceil(words / width)`` cycles, the form of
:func:`machines.darl.tlm.allreduce.allreduce_cycles` with ``latency = HOP_LATENCY`` (the
link register) and ``per_beat = 1``. With ``average`` the last stage also divides by n (eq.
22): an arithmetic shift by k with one round half up, ``(sum + 2**(k-1)) >> k``, which is
the format's ``mul`` by ``1/n = 2**-k`` exactly. Every agent ends with the same words, bit
for bit.

``start`` is sampled in cycle 0; ``done`` is high in the cycle after the last write, cycle
``k * (HOP_LATENCY + beats) + 1``.

The buffers are loaded and read back a beat a cycle, through ports one link beat wide: the
paper's agents feed the all-reduce from their wide model memories, and the block's own link is
that wide (:mod:`.butterfly_driver`).
"""

from __future__ import annotations

from myhdl import Signal, always_seq, block, intbv

from rlaccel.rtl.signals import bits_for, sig_unsigned
from rlaccel.machines.darl.rtl.params import DarlParams

__all__ = ["darl_butterfly", "butterfly_signals", "HOP_LATENCY"]

#: cycles a stage adds to its beats: the link register between the buffers and the adders
HOP_LATENCY = 1


@block
def darl_butterfly(clk, rst, ld_we, ld_agent, ld_beat, ld_data, start, words,
                   nstages, average, done, sats, rd_en, rd_agent, rd_beat, rd_data, *,
                   prm: DarlParams):
    """The n-agent butterfly network with the agents' reduction buffers.

    clk -- in, clock
    rst -- in, synchronous reset
    ld_we -- in, write one beat of an agent's buffer (between reductions)
    ld_agent -- in, the agent
    ld_beat -- in, the beat of the buffer (word index = beat * width + lane)
    ld_data -- in, the beat's width words (lane l in bits [l B + B - 1 : l B])
    start -- in, begin a reduction of the first ``words`` words of every buffer
    words -- in, words per agent (1 .. buffer_words)
    nstages -- in, with start: log2 of the agents taking part (agents 0 .. 2**nstages - 1;
               the others keep their buffers)
    average -- in, with start: divide the sum by n in the last stage
    done -- out, high for one cycle when every buffer holds the result
    sats -- out, saturated words of the reduction so far (cleared by start)
    rd_en -- in, read a beat
    rd_agent -- in, an agent whose buffer to read
    rd_beat -- in, a beat
    rd_data -- out, that beat's words as ld_data, registered (the cycle after rd_en)
    """
    n, K, W, E = prm.agents, prm.stages, prm.width, prm.entries
    B = prm.word_bits
    WB = W * B
    MAXR, MINR = prm.dt.max_raw, prm.dt.min_raw
    mem = [sig_unsigned(WB) for _ in range(n * E)]       # agent a's beat b at a * E + b
    P = n // 2                                            # agent pairs of a stage
    # stage s's pair p: its lower agent (bit s clear) and its upper agent (bit s set)
    LOWER = tuple(((p >> s) << (s + 1)) | (p & ((1 << s) - 1)) for s in range(max(K, 1))
                  for p in range(P))
    UPPER = tuple(j | (1 << (i // P)) for i, j in enumerate(LOWER))
    lo = [sig_unsigned(WB) for _ in range(P)]            # the link registers, by pair: lower
    hi = [sig_unsigned(WB) for _ in range(P)]            # and upper agent's beat
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
        j = intbv(0, min=0, max=n)                          # a pair's lower agent
        u = intbv(0, min=0, max=n)                          # and its upper agent
        dv = intbv(0, min=0, max=2)                         # the last stage of an average
        lim = intbv(0, min=0, max=WB + 1)                   # bits of the beat's counted words
        d = intbv(0)[WB:]                                   # the sums of a beat
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
            if beat * W < count:                   # read a beat: both agents' words of a pair
                for p in range(P):
                    j[:] = LOWER[stage * P + p]
                    if j < used:
                        u[:] = UPPER[stage * P + p]
                        lo[p].next = mem[j * E + beat]
                        hi[p].next = mem[u * E + beat]
                v1.next = 1
                a1.next = beat
                beat.next = beat + 1
            else:
                v1.next = 0
            if v1:                                 # add and write the beat read last cycle
                ns[:] = 0
                dv[:] = 0
                if avg and stage == kk - 1:
                    dv[:] = 1
                    half[:] = 1 << (kk - 1)
                if count - a1 * W >= W:
                    lim[:] = WB
                else:
                    lim[:] = (count - a1 * W) * B
                for p in range(P):
                    j[:] = LOWER[stage * P + p]
                    if j < used:
                        u[:] = UPPER[stage * P + p]
                        for lane in range(0, WB, B):          # lane: the word's first bit
                            total[:] = lo[p][lane + B:lane].signed() + \
                                hi[p][lane + B:lane].signed()
                            if total[B] != total[B - 1]:      # out of range: saturate
                                if total[B]:
                                    r[:] = MINR
                                else:
                                    r[:] = MAXR
                                if lane < lim:                # both agents' adds saturate
                                    ns[:] = ns + 2
                            else:
                                r[:] = total[B:].signed()
                            if dv:                            # / 2**kk, round half up
                                r[:] = (r + half) >> kk
                            d[lane + B:lane] = r[B:]
                        mem[j * E + a1].next = d
                        mem[u * E + a1].next = d
                sats.next = sats + ns
                if beat * W >= count:              # the stage's last sum is written now
                    if stage == kk - 1:
                        running.next = 0
                        done.next = 1
                    else:
                        stage.next = stage + 1
                        beat.next = 0
        elif ld_we:
            mem[ld_agent * E + ld_beat].next = ld_data

    @always_seq(clk.posedge, reset=rst)
    def read():
        if rd_en:
            rd_data.next = mem[rd_agent * E + rd_beat]

    return control, read


def butterfly_signals(prm: DarlParams) -> dict:
    """Fresh port signals of the network (clk and rst excluded)."""
    B = prm.word_bits
    AB = bits_for(max(prm.agents - 1, 1))
    EB, WB = bits_for(prm.entries - 1), prm.width * B
    return {"ld_we": sig_unsigned(0), "ld_agent": sig_unsigned(AB),
            "ld_beat": sig_unsigned(EB), "ld_data": sig_unsigned(WB),
            "start": sig_unsigned(0),
            "words": Signal(intbv(1, min=0, max=prm.buffer_words + 1)),
            "nstages": Signal(intbv(0, min=0, max=prm.stages + 1)),
            "average": sig_unsigned(0), "done": sig_unsigned(0),
            "sats": sig_unsigned(bits_for(prm.agents * prm.buffer_words * max(prm.stages, 1))),
            "rd_en": sig_unsigned(0), "rd_agent": sig_unsigned(AB),
            "rd_beat": sig_unsigned(EB), "rd_data": sig_unsigned(WB)}

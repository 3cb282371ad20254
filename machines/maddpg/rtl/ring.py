"""MADDPG's ring of learners (the MADDPG paper, section III-A): ring nodes running the all-gather.

A node (``_node``, a part of :func:`maddpg_ring`) holds every learner's vector (``learners``
slots of up to ``max_words`` words; its own is loaded into its slot) and is linked to the
next node by a link of ``latency`` registers carrying ``link_words`` words a beat (the
architecture's ``[interconnect]`` table), the message's length travelling beside its first
beat. In step ``s = 1 .. n-1`` node ``i`` forwards learner ``(i - s + 1) mod n``'s vector --
its own in step 1, then what it received in step ``s - 1`` -- and receives learner ``(i - s)
mod n``'s.

A node starts step 1 when ``go`` says its vector is ready, and step ``s`` when its step
``s - 1`` message has been delivered and it has received the predecessor's step ``s - 1``
message. A message of ``w`` words is delivered ``hop(w) = latency + ceil(w / link_words)``
cycles after the node starts it (``ceil(w / link_words)`` beats, one a cycle, through the
``latency`` registers), the hop of :func:`machines.maddpg.tlm.ring.hop_cycles`, so every
node's ``done`` rises in the cycle :func:`~machines.maddpg.tlm.ring.allgather_cycles` gives
for the learners' sizes and start cycles.

:func:`maddpg_ring` is ``learners`` nodes closed in a ring, with a load port, a read port and
every node's ``go`` and ``done``.
"""

from __future__ import annotations

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, intbv

from rlaccel.rtl.bus import bus_join, bus_word
from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.signals import bits_for, sig_unsigned
from rlaccel.machines.maddpg.rtl.params import MaddpgParams

__all__ = ["maddpg_ring", "ring_signals", "MAX_WORDS"]

#: words of a learner's vector in the checked instance (an action: a few words)
MAX_WORDS = 16


def _sizes(prm: MaddpgParams) -> dict:
    n, W = prm.learners, prm.link_words
    return {"n": n, "W": W, "B": prm.word_bits, "beats": -(-MAX_WORDS // W),
            "lb": bits_for(MAX_WORDS), "sb": bits_for(max(n - 1, 1)),
            "ab": bits_for(MAX_WORDS - 1)}


@block
def _node(clk, rst, clear, go, ld_we, ld_addr, ld_data, ld_len, in_valid, in_first, in_len,
          in_data, out_valid, out_first, out_len, out_data, done, rd_slot, rd_addr, rd_data, *,
          prm: MaddpgParams, index: int):
    """Ring node ``index`` (a part of maddpg_ring).

    clk -- in, clock
    rst -- in, synchronous reset
    clear -- in, a new all-gather: clear the steps and the counts
    go -- in, this node's vector is ready (held or a pulse)
    ld_we -- in, write a word of this node's own vector
    ld_addr -- in, the word's index
    ld_data -- in, the word
    ld_len -- in, with ld_we: the vector's length (1 .. MAX_WORDS)
    in_valid -- in, a beat from the previous node's link
    in_first -- in, the beat starts a message
    in_len -- in, with in_first: the message's length in words
    in_data -- in, the beat's link_words words (word k in bits [32k+31:32k])
    out_valid, out_first, out_len, out_data -- out, this node's link output register
    done -- out, the node has sent and received its n-1 messages (it holds every vector)
    rd_slot -- in, a learner's slot
    rd_addr -- in, a word of it
    rd_data -- out, the word, registered
    """
    z = _sizes(prm)
    n, W, B = z["n"], z["W"], z["B"]
    L = prm.hop_latency
    if L < 1:
        raise RtlError(f"maddpg_ring: the link needs at least its output register; the "
                       f"architecture's [interconnect] latency is {L}")
    mem = [Signal(intbv(0)[B:]) for _ in range(n * MAX_WORDS)]
    lens = [Signal(intbv(0, min=0, max=MAX_WORDS + 1)) for _ in range(n)]
    started = sig_unsigned(0)
    step = Signal(intbv(1, min=0, max=n + 1))          # the next step to start
    sending = sig_unsigned(0)
    beat = Signal(intbv(0, min=0, max=z["beats"] + 1))
    nbeats = Signal(intbv(0, min=0, max=z["beats"] + 1))
    src = Signal(intbv(0, min=0, max=n))
    timer = Signal(intbv(0, min=0, max=L + z["beats"] + 1))
    rcount = Signal(intbv(0, min=0, max=n))
    rslot = Signal(intbv(0, min=0, max=n))
    nsrc = Signal(intbv(index, min=0, max=n))            # the next step's learner
    RCV0, LAST = (index - 1) % n, n - 1
    nrcv = Signal(intbv(RCV0, min=0, max=n))             # the next message's learner
    rword = Signal(intbv(0, min=0, max=MAX_WORDS + W + 1))
    HOP_EXTRA = L - 1

    @always_comb
    def finished():
        done.next = (step == n and timer == 0 and not sending and rcount == n - 1
                     and (started or go))

    @always_seq(clk.posedge, reset=rst)
    def send():
        d = intbv(0)[W * B:]
        w = intbv(0)[B:]
        nb = intbv(0, min=0, max=z["beats"] + 1)
        out_valid.next = 0
        out_first.next = 0
        if clear:
            started.next = 0
            step.next = 1
            sending.next = 0
            timer.next = 0
            nsrc.next = index
        elif go:
            started.next = 1
        if timer > 0 and not clear:
            timer.next = timer - 1
        free = (not sending) and timer == 0
        ok = (started or go) and step < n and (step == 1 or rcount >= step - 1)
        if not clear and (sending or (free and ok)):
            if not sending:                             # start step `step`
                nb[:] = (lens[nsrc] + W - 1) // W
                src.next = nsrc
                if nsrc == 0:
                    nsrc.next = LAST
                else:
                    nsrc.next = nsrc - 1
                nbeats.next = nb
                timer.next = HOP_EXTRA + nb
                step.next = step + 1
                out_first.next = 1
                out_len.next = lens[nsrc]
                for k in range(W):
                    w[:] = mem[nsrc * MAX_WORDS + k]
                    for b in range(B):
                        d[k * B + b] = w[b]
                out_data.next = d
                out_valid.next = 1
                if nb > 1:
                    sending.next = 1
                    beat.next = 1
            else:
                for k in range(W):
                    if beat * W + k < MAX_WORDS:
                        w[:] = mem[src * MAX_WORDS + beat * W + k]
                    else:
                        w[:] = 0
                    for b in range(B):
                        d[k * B + b] = w[b]
                out_data.next = d
                out_valid.next = 1
                beat.next = beat + 1
                if beat + 1 >= nbeats:
                    sending.next = 0

    @always_seq(clk.posedge, reset=rst)
    def receive():
        w = intbv(0)[B:]
        slot = intbv(0, min=0, max=n)
        base = intbv(0, min=0, max=MAX_WORDS + W + 1)
        if clear:
            rcount.next = 0
            nrcv.next = RCV0
        elif in_valid:
            if in_first:
                slot[:] = nrcv
                if nrcv == 0:
                    nrcv.next = LAST
                else:
                    nrcv.next = nrcv - 1
                base[:] = 0
                lens[slot].next = in_len
                rslot.next = slot
            else:
                slot[:] = rslot
                base[:] = rword
            for k in range(W):
                for b in range(B):
                    w[b] = in_data[k * B + b]
                if base + k < MAX_WORDS:
                    mem[slot * MAX_WORDS + base + k].next = w
            rword.next = base + W
            if (in_first and in_len <= W) or (not in_first and base + W >= lens[rslot]):
                rcount.next = rcount + 1
        if ld_we:
            mem[index * MAX_WORDS + ld_addr].next = ld_data
            lens[index].next = ld_len

    @always_seq(clk.posedge, reset=rst)
    def read():
        rd_data.next = mem[rd_slot * MAX_WORDS + rd_addr]

    return finished, send, receive, read


@block
def _link(clk, rst, v_in, f_in, l_in, d_in, v_out, f_out, l_out, d_out):
    """One register of a link (a part of maddpg_ring)."""
    @always_seq(clk.posedge, reset=rst)
    def reg():
        v_out.next = v_in
        f_out.next = f_in
        l_out.next = l_in
        d_out.next = d_in

    return reg


@block
def maddpg_ring(clk, rst, clear, go, ld_we, ld_node, ld_addr, ld_data, ld_len, done, rd_node,
                rd_slot, rd_addr, rd_data, *, prm: MaddpgParams):
    """``learners`` ring nodes closed in a ring.

    clk -- in, clock
    rst -- in, synchronous reset
    clear -- in, a new all-gather
    go -- in, node i's vector is ready in bit i
    ld_we -- in, write a word of a node's own vector
    ld_node -- in, the node
    ld_addr, ld_data, ld_len -- in, the word's index, the word, the vector's length
    done -- out, bit i: node i holds every learner's vector
    rd_node, rd_slot, rd_addr -- in, read node rd_node's copy of learner rd_slot's word
    rd_data -- out, the word, registered
    """
    z = _sizes(prm)
    n, W, B = z["n"], z["W"], z["B"]
    L = prm.hop_latency

    def link_sigs():
        return (sig_unsigned(0), sig_unsigned(0), Signal(intbv(0, min=0, max=MAX_WORDS + 1)),
                sig_unsigned(W * B))

    outs = [link_sigs() for _ in range(n)]                 # each node's output register
    ins = [outs[i] for i in range(n)]
    insts = []
    for i in range(n):                                     # L - 1 more registers per link
        cur = outs[i]
        for _ in range(L - 1):
            nxt = link_sigs()
            insts.append(_link(clk, rst, *cur, *nxt))
            cur = nxt
        ins[(i + 1) % n] = cur
    dones = [sig_unsigned(0) for _ in range(n)]
    rds = [sig_unsigned(B) for _ in range(n)]
    gos = [go(i) for i in range(n)] if n > 1 else [go(0)]
    wes = [sig_unsigned(0) for _ in range(n)]
    for i in range(n):
        insts.append(_node(clk, rst, clear, gos[i], wes[i], ld_addr, ld_data, ld_len, *ins[i],
                               *outs[i], dones[i], rd_slot, rd_addr, rds[i], prm=prm,
                               index=i))
    insts.append(bus_join(dones, done))
    rbus = ConcatSignal(*reversed(rds)) if n > 1 else rds[0]
    web = sig_unsigned(n)

    @always_comb
    def decode():
        v = intbv(0)[n:]
        if ld_we:
            v[ld_node] = 1
        web.next = v

    for i in range(n):
        insts.append(bus_word(web, wes[i], k=i))

    @always_comb
    def outputs():
        v = intbv(0)[B:]
        for b in range(B):
            v[b] = rbus[rd_node * B + b]
        rd_data.next = v

    return insts, decode, outputs


def ring_signals(prm: MaddpgParams) -> dict:
    """Fresh port signals of the ring (clk and rst excluded)."""
    z = _sizes(prm)
    n = z["n"]
    return {"clear": sig_unsigned(0), "go": sig_unsigned(n), "ld_we": sig_unsigned(0),
            "ld_node": sig_unsigned(bits_for(max(n - 1, 1))), "ld_addr": sig_unsigned(z["ab"]),
            "ld_data": sig_unsigned(z["B"]),
            "ld_len": Signal(intbv(1, min=0, max=MAX_WORDS + 1)), "done": sig_unsigned(n),
            "rd_node": sig_unsigned(bits_for(max(n - 1, 1))),
            "rd_slot": sig_unsigned(bits_for(max(n - 1, 1))), "rd_addr": sig_unsigned(z["ab"]),
            "rd_data": sig_unsigned(z["B"])}

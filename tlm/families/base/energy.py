"""Energy actions of the base family: what one execution of an instruction does.

Every instruction's actions (MACs, multiplies, adds, activations, words read and written in
the synapse SRAM, the neuron registers and the buffers, one decode) are fixed by its operands,
so they are counted once when the program is loaded; a run multiplies them by how often each
instruction executed (:mod:`rlaccel.tlm.energy` prices them and adds the clock per cycle).

Energy units (seed 001, Fig. 12): ``arithmetic`` (mac, mul, add, act), ``synapse`` (SRAM
words), ``neuron`` (registers and buffers), ``control`` (decode; the clock tree and leakage).

Prices (:func:`prices`, :func:`clock`): the cost model (:mod:`rlaccel.tlm.cost`) composes
them from primitive components at the architecture's technology, number format and sizes:
a MAC is a multiply of the format and an accumulate (a fixed-point adder of twice the word),
``act`` the piecewise-linear activation (a multiply, an add and a read of the table of
``pwl_segments`` slope-intercept pairs), a
synapse word a word of a RAM of ``synapse_words`` in ``lanes`` banks plus the rotation
network that aligns any ``lanes`` consecutive words to the lanes (a ``lanes``:1 multiplexer
per word), a neuron register or buffer word a word of those memories (what implements each
is the architecture's ``[technology] memories``), ``decode`` an instruction word read from
the instruction memory; the virtual-update chip adds two 2:1 multiplexers of the word to
every arithmetic operation (the ADHDP paper, section V: "multiplexers are added in the arithmetic
unit"). Per cycle, an ASIC clocks the flip-flops of the neuron registers, the buffers, the
instruction registers (the ADHDP paper's section V calls all three registers), the pipeline (each of
``pipeline_depth`` stages holds an operand pair of every lane) and the loop counters, and
leaks (the flip-flops, a multiplier and an adder per lane and the scalar unit's).

An architecture may still state prices in ``[energy]``, each with its source in
``[energy_sources]`` (same keys, one sentence each): :func:`source_problems` lists what lacks
one, and the ADHDP runs refuse such an architecture.
"""

from __future__ import annotations

from typing import Mapping

from rlaccel.util.errors import ArchError

from rlaccel.tlm.cost.primitives import Price
from rlaccel.tlm.families.base.semantics import vu_words

__all__ = ["ACTIONS", "UNITS", "actions", "word_actions", "source_problems",
           "check_energy_sources", "prices", "clock", "flipflop_bits"]

#: action -> the energy unit it belongs to (Fig. 12)
ACTIONS = {"mac": "arithmetic", "mul": "arithmetic", "add": "arithmetic", "act": "arithmetic",
           "sram_read": "synapse", "sram_write": "synapse", "reg_read": "neuron",
           "reg_write": "neuron", "buf_read": "neuron", "buf_write": "neuron",
           "decode": "control"}
#: the energy units of Fig. 12, in report order (``control`` also takes the clock)
UNITS = ("arithmetic", "synapse", "neuron", "control")


def _words(counts: dict, kind: str, addr: int, n: int, neuron_words: int) -> None:
    """Count n words at unified address addr as register or buffer accesses."""
    regs = max(0, min(addr + n, neuron_words) - addr)
    counts[f"reg_{kind}"] += regs
    counts[f"buf_{kind}"] += n - regs


def word_actions(reads, writes, neuron_words: int) -> dict[str, int]:
    """One decode plus the register and buffer words of ``(address, words)`` reads and
    writes in the unified space (what an instruction that only moves words counts)."""
    c = dict.fromkeys(ACTIONS, 0)
    c["decode"] = 1
    for addr, n in reads:
        _words(c, "read", addr, n, neuron_words)
    for addr, n in writes:
        _words(c, "write", addr, n, neuron_words)
    return c


def actions(mnemonic: str, o: Mapping[str, int], neuron_words: int) -> dict[str, int]:
    """The actions one execution of an instruction performs (seed 001 dataflow)."""
    c = dict.fromkeys(ACTIONS, 0)
    c["decode"] = 1
    rows, cols, off = o.get("rows", 0), o.get("cols", 0), o.get("off", 0)
    n = cols - off
    act = o.get("act", 0)
    if mnemonic == "ff.mov":
        _words(c, "read", o["src"], cols, neuron_words)
        _words(c, "write", o["dst"], cols, neuron_words)
        return c
    merged = mnemonic in ("bp.vu", "bp_wu.vu")
    if merged:                          # E of the layer below: read, add, written (eq. 23)
        mnemonic = mnemonic[:-3]
        c["sram_read"] += n
        c["sram_write"] += n
        c["add"] += n
    if mnemonic == "ff":
        c["mac"] = rows * n
        c["sram_read"] = rows * n
        _words(c, "read", o["src"], n, neuron_words)
        _words(c, "write", o["dst"], rows, neuron_words)
        c["act"] = rows if act else 0
    elif mnemonic in ("bp", "bp_wu"):
        c["mac"] = rows * n * (2 if mnemonic == "bp_wu" else 1)
        c["sram_read"] += rows * n
        c["sram_write"] += rows * n if mnemonic == "bp_wu" else 0
        c["mul"] += n if act else 0
        _words(c, "read", o["src"], rows, neuron_words)
        _words(c, "read", o["dst"], n, neuron_words)
        _words(c, "write", o["dst"], n, neuron_words)
    elif mnemonic in ("wu", "vu.commit"):
        c["mac"] = rows * n
        c["sram_read"] = rows * n + (rows if mnemonic == "vu.commit" else 0)
        c["sram_write"] = rows * n
        _words(c, "read", o["src"] if mnemonic == "vu.commit" else o["dst"], n, neuron_words)
        if mnemonic == "wu":
            _words(c, "read", o["src"], rows, neuron_words)
    elif mnemonic == "vu.init":
        c["mac"] = rows * cols
        c["mul"] = cols
        c["sram_read"] = rows * cols
        c["sram_write"] = vu_words(rows)
        _words(c, "read", o["src"], cols, neuron_words)
        _words(c, "write", o["dst"], rows, neuron_words)
        c["act"] = rows if act else 0
    elif mnemonic == "vu.step":
        c["mac"] = rows
        c["sram_read"] = vu_words(rows)
        _words(c, "write", o["dst"], rows, neuron_words)
        c["act"] = rows if act else 0
    elif mnemonic.startswith("sca."):
        srcs = [o[k] for k in ("a", "b", "c", "d") if k in o]
        for a in srcs:
            _words(c, "read", a, 1, neuron_words)
        _words(c, "write", o["dst"], 1, neuron_words)
        fn = mnemonic[4:]
        if fn in ("mul",):
            c["mul"] = 1
        elif fn in ("sqh",):
            c["mul"] = 2
        elif fn in ("mac",):
            c["mac"] = 1
        elif fn == "td":
            c["mul"], c["add"] = 1, 2
        elif fn in ("add", "sub", "cmp", "max", "min"):
            c["add"] = 1
    elif mnemonic in ("cc.blt", "cc.bge", "cc.bz", "cc.bnz", "cc.bsqlt"):
        for k in ("a", "b"):
            if k in o:
                _words(c, "read", o[k], 1, neuron_words)
        c["add"] = 1
        c["mul"] = 2 if mnemonic == "cc.bsqlt" else 0
    elif mnemonic == "cc.loop":
        c["add"] = 1
    elif mnemonic == "cc.host":
        _words(c, "read", o["out"], o["nout"], neuron_words)
        _words(c, "write", o["inp"], o["nin"], neuron_words)
    return c


def check_energy_sources(arch) -> None:
    """The ``[energy_sources]`` table, when there is one: a sentence (a string) for each
    ``[energy]`` constant it names (an ArchError names what is wrong). Whether every constant
    has one is :func:`source_problems`' to say."""
    where = arch.origin
    sources = arch.extra.get("energy_sources", {})
    if not isinstance(sources, dict):
        raise ArchError(f"{where}: [energy_sources] must be a table")
    for key, src in sources.items():
        if not isinstance(src, str):
            raise ArchError(f"{where}: [energy_sources] {key} must be a sentence (a string) "
                            f"saying where the figure comes from, not {src!r}")
        if key not in arch.extra.get("energy", {}):
            raise ArchError(f"{where}: [energy_sources] {key} names no [energy] constant")


def source_problems(arch) -> list[str]:
    """The ``[energy]`` constants of ``arch`` without a source in ``[energy_sources]`` (a
    sentence naming where the figure comes from), and sources of constants it does not have."""
    energy = arch.extra.get("energy", {})
    sources = arch.extra.get("energy_sources", {})
    where = arch.origin
    out = []
    for key in energy:
        src = sources.get(key)
        if not isinstance(src, str) or len(src.split()) < 3:
            out.append(f"{where}: [energy] {key} = {energy[key]} has no source in "
                       f"[energy_sources] (say where the figure comes from)")
    for key in sources:
        if key not in energy:
            out.append(f"{where}: [energy_sources] {key} names no [energy] constant")
    return out


# ---- prices (the cost model's) ---------------------------------------------------------------
def _default_memory(cost) -> str:
    return "sram" if cost.tech.kind == "asic" else "bram"


def prices(cost) -> dict[str, Price]:
    """Every base-family action's price at ``cost``'s architecture (module doc)."""
    k, arch = cost.knobs, cost.arch
    mem = _default_memory(cost)
    mul, add, acc = cost.mul(), cost.add(), cost.accumulate()
    vu = bool(arch.extra.get("datapath", {}).get("virtual_update", False))
    extra = (cost.mux(2) * 2).named(f"the virtual update's two 2:1 multiplexers "
                                    f"({cost.mux(2).how} each)") if vu else Price(0.0)
    syn_r, syn_w = cost.memory("synapse", k.synapse_words, mem, banks=k.lanes)
    rot = cost.mux(k.lanes).named(f"rotation to the lanes: {cost.mux(k.lanes).how}")
    reg_r, reg_w = cost.memory("neuron", k.neuron_words, mem)
    buf_r, buf_w = cost.memory("buffer", max(k.buffer_words, 1), mem)
    from rlaccel.isa.encoding import encoding_for
    ibits = encoding_for(arch).instr_bits
    decode, _ = cost.memory("imem", max(1, k.imem_bytes * 8 // ibits), mem, bits=ibits)
    table, _ = cost.memory("pwl", 2 * k.pwl_segments, mem)
    mac = cost.mac()
    return {
        "mac": mac + extra,
        "mul": mul + extra,
        "add": add + extra,
        "act": (mul + add + table).named(f"PWL activation: multiply ({mul.how}) + add "
                                         f"({add.how}) + segment-table read ({table.how})")
               + extra,
        "sram_read": syn_r + rot,
        "sram_write": syn_w + rot,
        "reg_read": reg_r, "reg_write": reg_w,
        "buf_read": buf_r, "buf_write": buf_w,
        "decode": decode.named(f"instruction fetch: {decode.how}"),
    }


def flipflop_bits(cost) -> dict[str, int]:
    """The flip-flops an ASIC of the base family clocks, by part (module doc)."""
    k, w = cost.knobs, cost.word_bits
    depth = int(cost.timing.get("pipeline_depth", 1))
    return {"neuron registers": k.neuron_words * w, "buffers": k.buffer_words * w,
            "instruction registers": k.imem_bytes * 8,
            "pipeline": k.lanes * 2 * w * depth,
            "loop counters": k.loop_counters * k.loop_limit_bits}


def clock(cost) -> tuple[Price, dict]:
    """Per cycle: the flip-flops' clock (all of them, or with ``[technology] clock_gating``
    only the pipeline's and the counters': the registers then clock only when written) and
    the leakage (module doc); with its parts in pJ."""
    bits = flipflop_bits(cost)
    gated = getattr(cost.tech, "clock_gating", False)
    clocked = {p: b for p, b in bits.items()
               if not gated or p in ("pipeline", "loop counters")}
    n = sum(clocked.values())
    clk = cost.flipflops(n)
    w, lanes = cost.word_bits, cost.knobs.lanes
    watts, how = cost.tech.leakage_w(sum(bits.values()), [(w, w)] * (lanes + 1),
                                     [2 * w] * (lanes + 1))
    leak = Price(watts / cost.clock_hz * 1e12,
                 f"{how}: {watts * 1e3:.3g} mW / {cost.knobs.clock_mhz:g} MHz",
                 ("aladdin2014", "stillmaker2017"))
    parts = ", ".join(f"{p} {b:,}" for p, b in clocked.items())
    total = (clk + leak).named(f"clock of {n:,} flip-flop bits ({parts}): {clk.how}; "
                               f"{leak.how}")
    return total, {"flipflops": clk.pj, "leakage": leak.pj}

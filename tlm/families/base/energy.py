"""Energy actions of the base family: what one execution of an instruction does.

Every instruction's actions (MACs, multiplies, adds, activations, words read and written in
the synapse SRAM, the neuron registers and the buffers, one decode) are fixed by its operands,
so they are counted once when the program is loaded; a run multiplies them by how often each
instruction executed (:mod:`rlaccel.tlm.energy` prices them and adds the clock per cycle).

Energy units (seed 001, Fig. 12): ``arithmetic`` (mac, mul, add, act), ``synapse`` (SRAM
words), ``neuron`` (registers and buffers), ``control`` (decode; the clock tree and leakage).

Every constant of an architecture's ``[energy]`` table names its source in the table
``[energy_sources]`` (same keys, one sentence each): :func:`source_problems` lists what lacks
one, and the ADHDP runs refuse such an architecture.
"""

from __future__ import annotations

from typing import Mapping

from rlaccel.util.errors import ArchError

from rlaccel.tlm.families.base.semantics import vu_words

__all__ = ["ACTIONS", "UNITS", "actions", "word_actions", "source_problems",
           "check_energy_sources"]

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

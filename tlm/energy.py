"""Energy: counts of actions per instruction, priced by the architecture's ``[energy]`` table.

Every instruction's actions (MACs, multiplies, adds, activations, words read and written in
the synapse SRAM, the neuron registers and the buffers, one decode) are fixed by its operands,
so they are counted once when the program is loaded; a run multiplies them by how often each
instruction executed, and adds the clock tree and leakage per cycle.

Units (seed 001, Fig. 12): ``arithmetic`` (mac, mul, add, act), ``synapse`` (SRAM words),
``neuron`` (registers and buffers), ``control`` (decode, clock and leakage).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from difflib import get_close_matches
from typing import Mapping

from isa.errors import ArchError

__all__ = ["EnergyTable", "ACTIONS", "UNIT_OF", "actions"]

ACTIONS = ("mac", "mul", "add", "act", "sram_read", "sram_write", "reg_read", "reg_write",
           "buf_read", "buf_write", "decode")
UNIT_OF = {"mac": "arithmetic", "mul": "arithmetic", "add": "arithmetic", "act": "arithmetic",
           "sram_read": "synapse", "sram_write": "synapse", "reg_read": "neuron",
           "reg_write": "neuron", "buf_read": "neuron", "buf_write": "neuron",
           "decode": "control"}
UNITS = ("arithmetic", "synapse", "neuron", "control")


@dataclass(frozen=True)
class EnergyTable:
    """Picojoules per action (words for memories) and per clock cycle."""

    mac: float
    mul: float
    add: float
    act: float
    sram_read: float
    sram_write: float
    reg_read: float
    reg_write: float
    buf_read: float
    buf_write: float
    decode: float
    clock: float          # clock tree and leakage, per cycle

    @classmethod
    def from_table(cls, table: Mapping, origin: str) -> "EnergyTable":
        names = [f.name for f in fields(cls)]
        for key, value in table.items():
            if key not in names:
                hint = get_close_matches(key, names, n=1)
                extra = f" (did you mean '{hint[0]}'?)" if hint else ""
                raise ArchError(f"{origin}: [energy] has unknown key '{key}'{extra}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ArchError(f"{origin}: [energy] {key} must be a non-negative number "
                                f"(pJ), not {value!r}")
        missing = [n for n in names if n not in table]
        if missing:
            raise ArchError(f"{origin}: [energy] is missing {', '.join(missing)}")
        return cls(**{k: float(v) for k, v in table.items()})

    def price(self, counts: Mapping[str, int]) -> float:
        return sum(getattr(self, a) * n for a, n in counts.items())

    def by_unit(self, counts: Mapping[str, int]) -> dict[str, float]:
        out = dict.fromkeys(UNITS, 0.0)
        for a, n in counts.items():
            out[UNIT_OF[a]] += getattr(self, a) * n
        return out


def _words(counts: dict, kind: str, addr: int, n: int, neuron_words: int) -> None:
    """Count n words at unified address addr as register or buffer accesses."""
    regs = max(0, min(addr + n, neuron_words) - addr)
    counts[f"reg_{kind}"] += regs
    counts[f"buf_{kind}"] += n - regs


def actions(mnemonic: str, o: Mapping[str, int], neuron_words: int) -> dict[str, int]:
    """The actions one execution of an instruction performs (seed 001 dataflow)."""
    c = dict.fromkeys(ACTIONS, 0)
    c["decode"] = 1
    rows, cols, off = o.get("rows", 0), o.get("cols", 0), o.get("off", 0)
    n = cols - off
    act = o.get("act", 0)
    if mnemonic == "ff":
        c["mac"] = rows * n
        c["sram_read"] = rows * n
        _words(c, "read", o["src"], n, neuron_words)
        _words(c, "write", o["dst"], rows, neuron_words)
        c["act"] = rows if act else 0
    elif mnemonic in ("bp", "bp_wu"):
        c["mac"] = rows * n * (2 if mnemonic == "bp_wu" else 1)
        c["sram_read"] = rows * n
        c["sram_write"] = rows * n if mnemonic == "bp_wu" else 0
        c["mul"] = n if act else 0
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
    elif mnemonic == "wu.vu":
        c["add"] = rows
        c["sram_read"] = rows
        c["sram_write"] = rows
        _words(c, "read", o["src"], rows, neuron_words)
    elif mnemonic == "vu.init":
        c["mac"] = rows * cols
        c["mul"] = cols
        c["sram_read"] = rows * cols
        c["sram_write"] = 2 * rows + 1
        _words(c, "read", o["src"], cols, neuron_words)
        _words(c, "write", o["dst"], rows, neuron_words)
        c["act"] = rows if act else 0
    elif mnemonic == "vu.step":
        c["mac"] = rows
        c["sram_read"] = 2 * rows + 1
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

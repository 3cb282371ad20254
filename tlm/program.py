"""Loading: a binary becomes a list of pre-decoded operations bound to the memories.

Each instruction is decoded once through the ISA table, its functional semantics bound to
the memory arrays (:mod:`tlm.semantics`), its cycles (:mod:`tlm.timing`), actions and energy
(:mod:`tlm.energy`) and hazard ranges (the table's extents) computed once. Faults -- an
illegal word, an access outside a memory -- are found here but raised only when the
instruction executes, as the hardware would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from assembler.disassemble import format_instruction
from assembler.rlb import Binary
from isa.arch import Arch
from isa.encoding import Encoding, Instruction
from isa.errors import ArchError, DecodeError
from isa.table import TABLE

from .energy import EnergyTable, actions
from .semantics import MATRIX, SCALAR, bind
from .timing import SCALAR_LATENCY, control_timing, matrix_timing

__all__ = ["Op", "predecode", "check_fits", "CATEGORY", "category"]

# Operation kinds the controller dispatches on
EXEC, JMP, HALT, BRANCH, LSET, LOOP, HOST, MARK, ENDMARK, FAULT = range(10)
_SPACE = {"unified": 0, "synapse": 1}

#: Fig. 11 categories
CATEGORY = ("FF", "BP_WU", "VU", "SCA", "CC")


def category(mnemonic: str) -> str:
    if mnemonic == "ff":
        return "FF"
    if mnemonic in ("bp", "wu", "bp_wu"):
        return "BP_WU"
    if mnemonic.startswith("vu.") or mnemonic == "wu.vu":
        return "VU"
    if mnemonic.startswith("sca."):
        return "SCA"
    return "CC"


@dataclass
class Op:
    """One pre-decoded instruction."""

    pc: int
    kind: int
    text: str
    mnemonic: str = ""
    run: Callable[[], None] | None = None
    issue: int = 1
    depth: int = 1
    reads: tuple = ()
    writes: tuple = ()
    counts: dict = field(default_factory=dict)
    energy_pj: float = 0.0
    operands: dict = field(default_factory=dict)
    fault: str = ""
    sqh: Callable | None = None    # cc.bsqlt: a*a/2 in the number format (as sca.sqh)


def check_fits(b: Binary, arch: Arch, enc: Encoding) -> None:
    """Refuse a binary the architecture cannot hold, saying what does not fit."""
    problems = []
    missing = [f for f in b.families if f not in arch.knobs.families]
    if missing:
        problems.append(f"it uses ISA famil{'ies' if len(missing) > 1 else 'y'} "
                        f"{', '.join(missing)}, which '{arch.name}' does not implement")
    if b.arch != arch.name or b.encoding_hash != enc.hash:
        problems.append(f"it was assembled for '{b.arch}' (encoding {b.encoding_hash}), "
                        f"not '{arch.name}' (encoding {enc.hash}); reassemble it")
    if b.n_instructions > enc.imem_capacity:
        problems.append(f"its {b.n_instructions} instructions of {enc.instr_bits} bits "
                        f"({(b.n_instructions * enc.instr_bits + 7) // 8} bytes) exceed the "
                        f"{arch.knobs.imem_bytes}-byte instruction memory "
                        f"({enc.imem_capacity} instructions)")
    for name, blob, size in (("unified-memory image", b.data, arch.geometry.unified_words),
                             ("synapse image", b.synapse, arch.knobs.synapse_words)):
        words = len(blob) // b.word_bytes if b.word_bytes else 0
        if words > size:
            problems.append(f"its {name} has {words} words; the memory has {size}")
    if problems:
        raise ArchError(f"{b.origin} does not fit architecture '{arch.name}': "
                        + "; ".join(problems))


def predecode(b: Binary, arch: Arch, enc: Encoding, U, S, dt, energy: EnergyTable,
              counter) -> list[Op]:
    """Decode and bind every instruction of a binary."""
    words = enc.from_bytes(b.text)
    mems = {"unified": len(U), "synapse": len(S)}
    lanes = arch.knobs.lanes
    ops = []
    for pc, w in enumerate(words):
        try:
            ins = enc.decode(w)
        except DecodeError as exc:
            ops.append(Op(pc, FAULT, enc.hex(w), fault=f"illegal instruction word: {exc}"))
            continue
        text = format_instruction(ins, enc, dt)
        ops.append(_bind(pc, ins, text, enc, mems, U, S, dt, energy, counter, lanes,
                         arch.knobs.neuron_words))
    return ops


def _bind(pc, ins: Instruction, text, enc, mems, U, S, dt, energy, counter, lanes,
          neuron_words) -> Op:
    mn, o = ins.mnemonic, dict(ins.operands)
    reads, writes = [], []
    for name, rw, addr, n in enc.extents(ins):
        space = enc.space_of(mn, name)
        if addr + n > mems[space]:
            verb = "reads" if rw == "r" else "writes"
            return Op(pc, FAULT, text, mn, fault=(
                f"{verb} {space} words {addr}..{addr + n - 1} ({name}) outside the "
                f"{mems[space]}-word {space} memory"))
        (reads if rw == "r" else writes).append((_SPACE[space], addr, addr + n))
    counts = actions(mn, o, neuron_words)
    op = Op(pc, EXEC, text, mn, reads=tuple(reads), writes=tuple(writes), counts=counts,
            energy_pj=energy.price(counts), operands=o)
    if mn in MATRIX:
        op.run = bind(ins, U, S, dt, counter)
        op.issue, op.depth = matrix_timing(mn, o["rows"], o["cols"] - o.get("off", 0), lanes,
                                           o.get("act", 0))
    elif mn in SCALAR:
        op.run = bind(ins, U, S, dt, counter)
        op.issue, op.depth = 1, SCALAR_LATENCY
    else:
        op.issue, op.depth = control_timing(mn), 1
        op.kind = {"cc.jmp": JMP, "cc.halt": HALT, "cc.lset": LSET, "cc.loop": LOOP,
                   "cc.host": HOST, "cc.mark": MARK, "cc.endmark": ENDMARK}.get(mn, BRANCH)
        if TABLE[mn].family != "base":  # extension families: encoding only, so far
            op.kind, op.fault = FAULT, f"'{mn}' has no simulator semantics yet"
        if mn == "cc.bsqlt":
            half = dt.quantize(0.5)
            op.sqh = lambda a: dt.mul(dt.mul(a, a, counter=counter), half, counter=counter)
    return op

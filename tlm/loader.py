"""Loading: a binary becomes a list of pre-decoded operations bound to one agent.

Each instruction is decoded once through the ISA table; its family's instruction model
(:mod:`rlaccel.tlm.families`) binds the semantics to the agent's memories and gives its cost
(issue cycles, pipeline depth, busy cycles per unit), its energy actions, its category and,
where the family has one, its compiled kernel (:class:`~rlaccel.tlm.model.Kernel`), once.
Faults -- an illegal word, an access outside a memory -- are found here but raised only
when the instruction executes, as the hardware would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from rlaccel.assembler.disassemble import format_instruction
from rlaccel.assembler.rlb import Binary
from rlaccel.isa.arch import Arch
from rlaccel.isa.encoding import Encoding
from rlaccel.util.errors import ArchError, DecodeError

from rlaccel.tlm.model import DYNAMIC, Binding, Cost

__all__ = ["Op", "predecode", "check_fits", "KIND"]

# Operation kinds the controller dispatches on
EXEC, JMP, HALT, BRANCH, LSET, LOOP, HOST, MARK, ENDMARK, FAULT, SYNC = range(11)
#: controller behaviour (InstructionModel.control) -> operation kind
KIND = {"exec": EXEC, "jump": JMP, "halt": HALT, "branch": BRANCH, "lset": LSET, "loop": LOOP,
        "host": HOST, "mark": MARK, "endmark": ENDMARK, "sync": SYNC}


@dataclass
class Op:
    """One pre-decoded instruction."""

    pc: int
    kind: int
    text: str
    mnemonic: str = ""
    run: Callable | None = None
    issue: int = 1
    depth: int = 1
    latency: int = 1                 # cycles until its last unit is done
    occupy: tuple = ()               # ((Unit, cycles), ...)
    reads: tuple = ()
    writes: tuple = ()
    counts: dict = field(default_factory=dict)
    energy_pj: float = 0.0
    operands: dict = field(default_factory=dict)
    category: str = ""
    dynamic: bool = False
    fault: str = ""
    kernel: object = None            # the model's Kernel, or None
    bound_run: Callable | None = None  # ``run`` as the loader bound it
    read_sched: tuple | None = None  # per read range: when each word is used (tlm.fast.hazards)
    write_sched: tuple | None = None  # per write range: when each word is ready (None: at the end)


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


#: decoded words per (encoding, number format): ``{word: (Instruction, text, extents)}``
#: (pure functions of the word, the encoding and the format; every agent of the same
#: architecture, and every member of a batch, decodes a word once)
_DECODED: dict[tuple[int, int], tuple] = {}
_DECODED_MAX = 1 << 16


def _decoded(enc: Encoding, dt) -> dict:
    key = (id(enc), id(dt))
    hit = _DECODED.get(key)
    if hit is None or hit[0] is not enc or hit[1] is not dt:
        if len(_DECODED) >= 16:
            _DECODED.clear()
        hit = _DECODED[key] = (enc, dt, {})       # held, so that the ids stay theirs
    if len(hit[2]) > _DECODED_MAX:
        hit[2].clear()
    return hit[2]


def predecode(b: Binary, agent, like: list[Op] | None = None) -> list[Op]:
    """Decode and bind every instruction of a binary to ``agent`` (:class:`tlm.agent.Agent`).
    ``like``: the ops of an agent with the same index on the same architecture, bound to a
    binary of the same text (a batch's member 0): their cost, energy, ranges and schedules
    are taken (the models compute them from the instruction and the architecture), only
    the semantics (when first called) and kernels are bound to ``agent``."""
    enc = agent.enc
    words = enc.from_bytes(b.text)
    known = _decoded(enc, agent.dt)
    ops = []
    for pc, w in enumerate(words):
        hit = known.get(w)
        if hit is None:
            try:
                ins = enc.decode(w)
            except DecodeError as exc:
                ops.append(Op(pc, FAULT, enc.hex(w), fault=f"illegal instruction word: {exc}"))
                continue
            hit = known[w] = (ins, format_instruction(ins, enc, agent.dt), enc.extents(ins))
        if like is not None and like[pc].kind != FAULT and like[pc].text == hit[1]:
            ops.append(_rebind(like[pc], hit[0], agent))
        else:
            ops.append(_bind(pc, *hit, agent))
    return ops


def _rebind(like: Op, ins, agent) -> Op:
    """``like`` (the same instruction, bound to another agent alike) bound to ``agent``."""
    mn, o = ins.mnemonic, dict(ins.operands)
    model = agent.models[mn]
    op = Op(like.pc, like.kind, like.text, mn, issue=like.issue, depth=like.depth,
            latency=like.latency, occupy=tuple((agent.unit(u.name), c) for u, c in like.occupy),
            reads=like.reads, writes=like.writes, counts=dict(like.counts),
            energy_pj=like.energy_pj, operands=o, category=like.category, dynamic=like.dynamic,
            read_sched=like.read_sched, write_sched=like.write_sched)
    if model.control in ("exec", "branch", "sync"):
        b = Binding(mn, o, agent, agent.dt, agent.saturations, agent.timing, agent.arch.knobs,
                    like.pc)
        op.run = op.bound_run = _OnFirstCall(op, model, b)
        if model.kernel is not None and model.control in ("exec", "branch"):
            op.kernel = model.kernel(b)
    return op


class _OnFirstCall:
    """An op's semantics, bound when first called (then the op's ``run`` itself): a batch
    member runs its kernels and seldom needs them; the same instruction bound to the agent
    it is like shows that binding succeeds."""

    __slots__ = ("op", "model", "b")

    def __init__(self, op: Op, model, b):
        self.op, self.model, self.b = op, model, b

    def __call__(self, *args, **kwargs):
        fn = self.model.semantics(self.b)
        if self.op.run is self:
            self.op.run = fn
        if self.op.bound_run is self:
            self.op.bound_run = fn
        return fn(*args, **kwargs)


def _bind(pc, ins, text, extents, agent) -> Op:
    mn, o = ins.mnemonic, dict(ins.operands)
    enc = agent.enc
    model = agent.models[mn]
    reads, writes, names = [], [], {"r": [], "w": []}
    for name, rw, addr, n in extents:
        names[rw].append(name)
        space = enc.space_of(mn, name)
        size = agent.space_words(space)
        if addr + n > size:
            verb = "reads" if rw == "r" else "writes"
            return Op(pc, FAULT, text, mn, fault=(
                f"{verb} {space} words {addr}..{addr + n - 1} ({name}) outside the "
                f"{size}-word {space} memory"))
        (reads if rw == "r" else writes).append((agent.space_index(space), addr, addr + n))
    b = Binding(mn, o, agent, agent.dt, agent.saturations, agent.timing, agent.arch.knobs, pc)
    counts = dict(model.actions(b))
    try:
        energy_pj = agent.energy.price(counts)
    except KeyError as exc:
        raise ArchError(f"'{mn}': its model counts energy action {exc} that no family of "
                        f"'{agent.arch.name}' declares") from None
    op = Op(pc, KIND[model.control], text, mn, reads=tuple(reads), writes=tuple(writes),
            counts=counts, energy_pj=energy_pj, operands=o, category=model.category)
    if model.control in ("exec", "branch", "sync"):
        op.run = op.bound_run = model.semantics(b)
        if model.kernel is not None and model.control in ("exec", "branch"):
            op.kernel = model.kernel(b)
    if model.timing is DYNAMIC:
        op.dynamic = True
    else:
        _set_cost(op, model.timing(b), agent)
    sched = model.schedule(b) if model.schedule is not None else None
    if sched:
        op.read_sched = tuple(sched.get((n, "r")) for n in names["r"])
        op.write_sched = tuple(sched.get((n, "w")) for n in names["w"])
    return op


def _set_cost(op: Op, cost: Cost, agent) -> None:
    op.issue, op.depth, op.latency = cost.issue, cost.depth, cost.latency
    op.occupy = tuple((agent.unit(name), cycles) for name, cycles in cost.busy)

"""What the simulator knows about one instruction, and about one family of them.

An :class:`InstructionModel` holds every piece the simulator needs to run a mnemonic:

* ``control`` -- the controller's behaviour (:data:`CONTROLS`: execute on a unit, branch,
  jump, loop, host exchange, synchronise with other agents, ...);
* ``semantics(b)`` -- given a :class:`Binding` (the decoded instruction bound to one agent's
  memories, number format and state), the callable that does the work: for ``exec`` it
  updates the memories (and returns ``None``, or a :class:`Cost` when the timing depends on
  the data); for ``branch`` it returns whether the branch is taken; for ``sync`` it is a
  generator function of the start cycle that waits on other agents in SimPy time and returns
  the cycles it took;
* ``timing(b)`` -- the :class:`Cost` of one execution (issue cycles, pipeline depth, busy
  cycles per unit), computed once at load, or :data:`DYNAMIC` when ``semantics`` returns it;
* ``actions(b)`` -- the energy actions of one execution (counts, priced by the
  architecture's ``[energy]`` table);
* ``category`` -- the result category the family reports it under;
* ``kernel(b)`` (optional) -- a :class:`Kernel`: the instruction's whole arithmetic as a code
  of the family's compiled kernels and integer operands, bound once at load, which the
  compiled inner loop (:mod:`rlaccel.tlm.fast`) runs without returning to Python; ``None``
  (the default, or as the piece's answer) runs ``semantics`` from Python instead. A kernel
  must give exactly the semantics' results, which its family's tests check;
* ``schedule(b)`` (optional) -- when each word of the instruction's read and write ranges is
  used or ready, relative to its start: ``{(operand, "r" | "w"): (t0, stride, rstep, coff,
  per, cstep)}`` (:mod:`rlaccel.tlm.fast.hazards`), so that a consumer starts as soon as its
  first operands are ready; ``None`` (the default, or as the piece's answer) keeps the
  per-instruction rule (every word used at the start, all results ready with the last).

A :class:`Family` gathers the models of one ISA family with the energy actions it defines
(and which energy unit each belongs to), its result categories and the ``[timing]`` constants
it reads. Every piece is required: :func:`rlaccel.tlm.families.check_complete` refuses a
family whose table rows lack a model or whose models lack a piece.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
from numpy.lib.stride_tricks import as_strided

from rlaccel.util.errors import ArchError

__all__ = ["CONTROLS", "DYNAMIC", "BY_CONTROLLER", "Cost", "Binding", "InstructionModel",
           "Family", "PIECES", "Kernel", "batch_rows"]

#: controller behaviours an instruction model may have
CONTROLS = ("exec", "branch", "jump", "halt", "loop", "lset", "host", "mark", "endmark", "sync")

#: the pieces every model must provide
PIECES = ("control", "semantics", "timing", "actions", "category")


class _Dynamic:
    def __repr__(self) -> str:
        return "DYNAMIC"


#: ``timing`` of a model whose cost depends on the data: its semantics returns the Cost
DYNAMIC = _Dynamic()


class _ByController:
    def __repr__(self) -> str:
        return "BY_CONTROLLER"


#: ``semantics`` of an instruction the controller itself carries out (jump, loop, host, ...)
BY_CONTROLLER = _ByController()


@dataclass(frozen=True, slots=True)
class Cost:
    """The time one execution takes.

    ``issue`` -- cycles the instruction holds the controller's issue stage; ``depth`` --
    pipeline stages its last result needs to reach write-back (a consumer may start
    ``busy + depth - 2`` cycles after it started, the scheduler forwarding the result);
    ``busy`` -- ``(unit, cycles)`` for every unit it occupies from its start (a unit with
    more busy cycles than ``issue`` keeps working while the controller issues the next
    instructions); ``actions`` -- energy actions of a data-dependent execution (``None``:
    the model's static ``actions``).
    """

    issue: int
    depth: int = 1
    busy: tuple[tuple[str, int], ...] = ()
    actions: Mapping[str, int] | None = None

    @property
    def latency(self) -> int:
        """Cycles until its last unit is done (at least its issue cycles)."""
        return max([self.issue] + [c for _, c in self.busy])


@dataclass(frozen=True, slots=True)
class Kernel:
    """An instruction bound to a compiled kernel of its family: the kernel ``code``, its
    integer operands ``args`` (addresses, sizes, activation) and an immediate ``imm`` (a raw
    value of the memories' type)."""

    code: int
    args: tuple[int, ...]
    imm: Any = 0


def batch_rows(mem: np.ndarray, addr: int, batch: int, stride: int, width: int,
               writeable: bool = True) -> np.ndarray:
    """A batch operand of memory ``mem`` as a live ``batch x width`` view: row ``k`` the
    ``width`` words at ``addr + k * stride`` (:func:`rlaccel.isa.rows.batch_rows` is its
    extent, which keeps it inside the memory)."""
    base = mem[addr:]
    step = base.strides[0]
    return as_strided(base, shape=(batch, width), strides=(stride * step, step),
                      writeable=writeable)


@dataclass
class Binding:
    """One decoded instruction bound to an agent: what a model's pieces are given.

    ``ops`` are the instruction's operands; ``mem(space)`` is the agent's memory of that space
    as a numpy array of raw words (a direct-memory-interface view); ``dt`` the number format;
    ``counter`` counts saturations; ``timing`` the architecture's ``[timing]`` constants;
    ``knobs`` its ``[machine]`` knobs; ``agent`` the agent (``agent.index``, ``agent.state``
    for per-agent state such as a PRNG stream or the selected peer, ``agent.platform`` for
    interconnects).
    """

    mnemonic: str
    ops: Mapping[str, int]
    agent: Any
    dt: Any
    counter: Any
    timing: Mapping[str, Any]
    knobs: Any
    pc: int = 0

    def mem(self, space: str) -> np.ndarray:
        return self.agent.memory(space)

    @property
    def where(self) -> str:
        """How a message names the instruction: ``bff at PC 12``."""
        return f"{self.mnemonic} at PC {self.pc}"

    def interconnect(self, kind: type):
        """The platform's interconnect, which this instruction needs to be a ``kind`` (a
        :mod:`rlaccel.tlm.core` interconnect class, named by its ``kind``); an ArchError says
        which ``[interconnect]`` to set otherwise."""
        net = self.agent.platform.interconnect
        if not isinstance(net, kind):
            raise ArchError(f"'{self.mnemonic}' needs a {kind.kind} interconnect: set "
                            f"[interconnect] kind = \"{kind.kind}\" in {self.agent.arch.origin}")
        return net


@dataclass(frozen=True)
class InstructionModel:
    """Everything the simulator needs to run one mnemonic (see the module docstring)."""

    mnemonic: str
    control: str | None
    semantics: Callable[[Binding], Any] | None
    timing: Callable[[Binding], Cost] | _Dynamic | None
    actions: Callable[[Binding], Mapping[str, int]] | None
    category: str | None
    kernel: Callable[[Binding], Kernel | None] | None = None
    schedule: Callable[[Binding], Mapping | None] | None = None

    def missing(self) -> list[str]:
        """The pieces this model lacks (empty when complete)."""
        gone = [p for p in PIECES if getattr(self, p) is None]
        if self.control is not None and self.control not in CONTROLS:
            gone.append(f"control ('{self.control}' is not one of {', '.join(CONTROLS)})")
        return gone


@dataclass(frozen=True)
class Family:
    """The instruction models of one ISA family and what they report in.

    ``actions`` -- energy action -> energy unit (the ``[energy]`` table prices each action;
    ``clock`` per cycle is common to every machine); ``categories`` -- the result categories
    in report order; ``timing_keys`` -- the ``[timing]`` constants the models read, with what
    each means; ``tables`` -- the architecture tables of the family's own, beside the
    platform's (:data:`rlaccel.tlm.platform.PLATFORM_TABLES`: any other table in an
    architecture file is refused as unknown); ``checks`` -- functions ``f(arch)`` that read
    and judge those tables (an ArchError names what is wrong), called when a platform is
    built and by :meth:`rlaccel.tlm.platform.Platform.check` for the verbs that build none.
    """

    name: str
    models: Mapping[str, InstructionModel]
    actions: Mapping[str, str]
    categories: tuple[str, ...]
    timing_keys: Mapping[str, str] = field(default_factory=dict)
    doc: str = ""
    tables: tuple[str, ...] = ()
    checks: tuple[Callable[[Any], Any], ...] = ()

"""The families' compiled kernels as the loop calls them: one kernel code space for every
family, routed to the family that owns the code.

The base family's kernels are a layer (:mod:`rlaccel.tlm.families.base.kernels`); every
other family's are in the package of the machine that defines it, at its descriptor's
``kernels`` (:class:`rlaccel.isa.machine.Machine`), a module with

* ``run(code, A, i, c0, U, S, K, T, B, imm, FS)`` -- compiled (:func:`~.jit.njit`): kernel
  ``code`` of the family with the operands ``A[i, c0:]`` on the unified and synapse memories
  ``U``, ``S`` (``K``, ``T``, ``B``, ``imm`` as the base family's :func:`run`), and ``X``, the
  family's own state of this agent; returns the saturations counted, or -1 when the
  reference semantics would refuse the operands (the loop then runs them, and they raise);
* ``state(agent)`` -- that ``X``: what the family's kernels read and write besides the
  memories (constant tables, a unit's registers, a FIFO), as arrays shared with the objects
  the reference semantics keep in ``agent.state``, so that either path sees the other's
  effects; called when the agent's compiled tables are built, after its instructions were
  bound.

A model's ``kernel`` piece returns its family's own code (0..255); :func:`code` makes it the
loop's (the family's index in :func:`families` times 256 plus it), and :func:`state` gives
an agent's family states ``FS``: its ``X`` for each family of :func:`families`, None for
the families its architecture does not implement. :func:`run` is what :mod:`.interp` calls: compiled, it is
specialised when the loop is compiled for an agent's ``FS`` and calls only the kernels of the
families present, so a machine compiles its own families' kernels and no other's, and the
compiled loop, with the kernels it calls inlined, is cached on disk like every function of
the loop (:mod:`.jit` keys the cache on the folders of these modules too).
"""

from __future__ import annotations

import importlib

import numpy as np

from rlaccel.tlm.families.base import kernels as _base
from rlaccel.tlm.fast.jit import HAVE_NUMBA

__all__ = ["families", "index", "code", "state", "run", "branch", "module", "FAMILY_CODES"]

#: kernel codes per family
FAMILY_CODES = 256

_FOUND: list | None = None


def families() -> tuple:
    """``(family, module path, module name)`` of every family with compiled kernels, the base
    family first, then the machines' in discovery order."""
    global _FOUND
    if _FOUND is None:
        from rlaccel.isa.machine import machines
        found = [("base", _base.__name__)]
        for m in machines().values():
            if m.family is not None and m.kernels:
                found.append((m.family, m.qualified(m.kernels).partition(":")[0]))
        _FOUND = found
    return tuple(_FOUND)


def index(family: str) -> int | None:
    """The position of ``family`` in :func:`families` (None: no compiled kernels)."""
    for i, (name, _) in enumerate(families()):
        if name == family:
            return i
    return None


def code(family: str, local: int) -> int:
    """The loop's code of kernel ``local`` of ``family``."""
    return index(family) * FAMILY_CODES + local


def module(i: int):
    """The kernel module of family ``i``."""
    return importlib.import_module(families()[i][1])


def state(agent) -> tuple:
    """The family states ``FS`` of an agent: its families' kernel states, None for the others (and for the
    base family, which keeps none)."""
    implemented = set(agent.arch.knobs.families)
    out = [None]
    for i, (name, _) in enumerate(families()[1:], start=1):
        out.append(module(i).state(agent) if name in implemented else None)
    return tuple(out)


def run(code, A, i, c0, U, S, K, T, B, imm, FS):
    """Kernel ``code`` of its family (module docstring); plain Python when numba is absent."""
    f = code // FAMILY_CODES
    if f == 0:
        return _base.run(code, A, i, c0, U, S, K, T, B, imm)
    return module(f).run(code - f * FAMILY_CODES, A, i, c0, U, S, K, T, B, imm, FS[f])


def branch(code, A, i, c0, U, K):
    """``(taken, saturations)`` of conditional branch ``code`` (the base family's; saturations
    -1 for memories of a format the base kernels do not compute in)."""
    return _base.branch(code, A, i, c0, U, K)


if HAVE_NUMBA:
    from numba import types
    from numba.extending import overload

    def _base_format(U) -> bool:
        """Whether the base family's kernels compute in the memories' format (fixed point's
        int64 words or float64); the loop of another format never calls them."""
        return U.dtype in (types.int64, types.float64)

    @overload(branch, jit_options={"_nrt": False})
    def _branch(code, A, i, c0, U, K):
        if _base_format(U):
            return lambda code, A, i, c0, U, K: _base.branch(code, A, i, c0, U, K)
        return lambda code, A, i, c0, U, K: (np.int64(0), np.int64(-1))

    @overload(run, jit_options={"_nrt": False})
    def _run(code, A, i, c0, U, S, K, T, B, imm, FS):
        """The dispatch for the families present in ``FS``'s type (module docstring)."""
        present = [f for f, t in enumerate(FS.types) if f and not isinstance(t, types.NoneType)]
        glob = {"_base": _base.run, **{f"_run{f}": module(f).run for f in present}}
        lines = ["def impl(code, A, i, c0, U, S, K, T, B, imm, FS):",
                 f"    f = code // {FAMILY_CODES}",
                 "    if f == 0:",
                 "        return _base(code, A, i, c0, U, S, K, T, B, imm)" if _base_format(U)
                 else "        return -1"]
        for f in present:
            lines += [f"    if f == {f}:",
                      f"        return _run{f}(code - {f * FAMILY_CODES}, A, i, c0, U, S, K, T, "
                      f"B, imm, FS[{f}])"]
        lines.append("    return -1")
        exec("\n".join(lines), glob)             # noqa: S102 - our own text, no input
        return glob["impl"]

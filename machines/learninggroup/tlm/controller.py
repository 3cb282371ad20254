"""The core controller of Fig. 7, cycle by cycle: how a LearningGroup core feeds its VPUs
the rows of one pass.

A pass takes up to :data:`.vpu.REGISTERS` (four) rows of the core's weight memory. The
controller broadcasts the rows' activations, one per accumulation register, and flattens
the rows' workloads into one vector ("by flattening the workloads into one-dimensional
vector", section III-D): element ``e`` of the pass belongs to row ``r`` when
``WL_0 + .. + WL_(r-1) <= e < WL_0 + .. + WL_r``. In the pass's cycle ``t``, VPU ``p`` takes
element ``e = t * n + p`` (its weight from the weight memory at the pass's base plus
``e``), selects activation and register ``r`` with its 2-bit select, and is enabled while
``e`` is inside the pass ("the WL_0 number of VPUs select Activation 0, the WL_1 number of
VPUs select Activation 1, and so on"). The pass takes ``ceil(sum WL / n)`` cycles: what
:func:`.timing.core_passes` charges per pass, and what the RTL core
(:mod:`machines.learninggroup.rtl.core`) takes between ``start`` and ``done``.

:func:`schedule` gives the selects and enables of every cycle; :func:`run_pass` steps a
:class:`.vpu.VpuArray` through them; :func:`core_cycles` counts a core's cycles over its
rows, pass by pass, cycle by cycle, and is what the simulator charges (once per grouping of
a layer); :func:`.timing.core_passes` is the same count as a formula (tested equal).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm.vpu import REGISTERS, VpuArray

__all__ = ["schedule", "run_pass", "core_cycles"]


def _workloads(workloads, registers: int = REGISTERS) -> np.ndarray:
    wl = np.asarray(workloads, dtype=np.int64)
    if wl.ndim != 1 or not 1 <= wl.size <= registers or (wl < 0).any():
        raise SimError(f"a pass takes 1..{registers} rows of workloads >= 0, not "
                       f"{workloads!r}")
    return wl


def schedule(workloads, n: int, registers: int = REGISTERS):
    """The cycles of one pass over ``n`` VPUs: per cycle ``(elements, selects, enables)``,
    arrays of ``n`` (element ``t * n + p`` of the flattened pass for VPU ``p``, its row, and
    whether it is inside the pass). ``registers``: the rows a pass may take (Fig. 7's four;
    more for the readings the report compares)."""
    wl = _workloads(workloads, registers)
    ends = np.cumsum(wl)
    total = int(ends[-1])
    lanes = np.arange(n)
    base = 0
    while base < total:
        e = base + lanes
        en = e < total
        sel = np.searchsorted(ends, e, side="right")
        yield e, np.where(en, sel, 0), en
        base += n


def run_pass(array: VpuArray, weights, activations, workloads, *, counter=None) -> int:
    """Step ``array`` through one pass: ``weights`` the pass's flattened weights (row 0's,
    then row 1's, ...), ``activations`` one per row. Returns the cycles it took."""
    wl = _workloads(workloads)
    w = np.asarray(weights, dtype=np.float16)
    if w.shape != (int(wl.sum()),):
        raise SimError(f"a pass of workloads {wl.tolist()} needs {int(wl.sum())} weights, "
                       f"not {w.size}")
    acts = np.asarray(activations, dtype=np.float16)
    if acts.shape != (wl.size,):
        raise SimError(f"a pass of {wl.size} rows broadcasts {wl.size} activations, not "
                       f"{acts.size}")
    start = array.cycles
    for e, sel, en in schedule(wl, array.n):
        lane_w = np.zeros(array.n, np.float16)
        lane_w[en] = w[e[en]]
        array.cycle(lane_w, acts, sel, en, counter=counter)
    return array.cycles - start


def core_cycles(workloads, n: int, registers: int = REGISTERS) -> int:
    """A core's cycles over its rows in order, ``registers`` rows a pass (rows without work
    skipped), counted cycle by cycle through :func:`schedule`: what the simulator charges a
    core for one vector (:meth:`.layer.PackedLayer.core_cycles`)."""
    wl = np.asarray(workloads, dtype=np.int64)
    if wl.ndim != 1 or (wl < 0).any():
        raise SimError(f"core workloads must be a vector of counts >= 0, not {workloads!r}")
    return _counted(wl[wl > 0].tobytes(), n, registers)


@lru_cache(maxsize=4096)
def _counted(workloads: bytes, n: int, registers: int) -> int:
    """:func:`core_cycles` of the rows with work (int64 bytes), counted once per workloads
    and shape: a layer's grouping changes rarely between weight updates, so most of a run's
    layers repeat an earlier count."""
    wl = np.frombuffer(workloads, np.int64)
    return sum(sum(1 for _ in schedule(wl[i:i + registers], n, registers))
               for i in range(0, wl.size, registers))

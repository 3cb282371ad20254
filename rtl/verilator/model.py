"""A compiled block loaded with ctypes: its two buffers, its memories and the event call.

The Python side owns the buffers (:mod:`.ports` lays the ports out in 64-bit slots); the
shim (:mod:`.shim`) copies the inputs in and the outputs out on every event, so a port is
read or written in Python without a call into the library. A library is loaded once per
process and shared by its models; each :class:`Model` is its own simulation (a Verilated
context), so a bench and a transactor of one block can run side by side.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.memory import Memory
from rlaccel.rtl.verilator.ports import Layout
from rlaccel.rtl.verilator.shim import FALL, FALL_RISE, RISE, SETTLE

__all__ = ["Model", "SETTLE", "RISE", "FALL", "FALL_RISE"]

_LIBS: dict[Path, ctypes.CDLL] = {}
_TRACE_KINDS = {0: None, 1: "vcd", 2: "fst"}
_I, _P, _U64 = ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64


def _load(path: Path) -> ctypes.CDLL:
    if path not in _LIBS:
        lib = ctypes.CDLL(str(path))
        for name, res, args in (
                ("rl_new", _P, [_P, _P, ctypes.c_char_p]),
                ("rl_edge", _I, [_P, _I, _U64, _U64]),
                ("rl_until", ctypes.c_int64, [_P, _U64, _U64, _I, ctypes.c_int64]),
                ("rl_free", None, [_P]),
                ("rl_trace_kind", _I, []),
                ("rl_mem_add", _I, [_P, _P, ctypes.c_int64, _I]),
                ("rl_mem_read", None, [_P, _I, _I, _I, _I, _I, _I]),
                ("rl_mem_write", None, [_P, _I, _I, _I, _I, _I, _I]),
                ("rl_mem_error", None, [_P, _P])):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        _LIBS[path] = lib
    return _LIBS[path]


class Model:
    """One simulation of a compiled block: ``inp`` and ``out`` (ctypes arrays of 64-bit
    slots), :meth:`edge`, :meth:`until`, :meth:`add_memory` and :meth:`close`. ``wave``: a waveform file
    the library's writer (VCD or FST, as it was built) fills with every signal of the
    block. ``half``: half the clock period, picoseconds."""

    def __init__(self, lib_path: Path, layout: Layout, half: int, wave: Path | None = None):
        self.layout = layout
        self.half = half
        self._lib = lib = _load(Path(lib_path))
        self.trace = _TRACE_KINDS[lib.rl_trace_kind()]
        if wave is not None and self.trace is None:
            raise RtlError(f"{lib_path} was built without a waveform writer")
        self.inp = (ctypes.c_uint64 * layout.in_words)()
        self.out = (ctypes.c_uint64 * layout.out_words)()
        self.memories: list[Memory] = []
        h = lib.rl_new(self.inp, self.out, None if wave is None else str(wave).encode())
        if not h:
            raise RtlError(f"{lib_path}: the model could not be created")
        self._h = ctypes.c_void_p(h)
        self._edge = lib.rl_edge
        self._until = lib.rl_until

    def edge(self, kind: int, time_ps: int) -> None:
        """Move the model by one event (:data:`SETTLE`, :data:`RISE`, :data:`FALL`, or
        :data:`FALL_RISE`: the falling edge at ``time_ps`` and the rising edge half a
        period later): the inputs in their slots go in, the outputs come out. A memory
        written outside its words raises the :class:`SimError` its description says."""
        if self._edge(self._h, kind, time_ps, self.half):
            self._memory_error()

    def until(self, time_ps: int, slot: int, most: int) -> int:
        """From the falling edge at ``time_ps``: cycles (:data:`FALL_RISE`) until the output
        in ``slot`` is nonzero after a rising edge, at most ``most``; how many ran."""
        n = self._until(self._h, time_ps, self.half, slot, most)
        if n < 0:
            self._memory_error()
        return n

    def _memory_error(self):
        info = (ctypes.c_int64 * 2)()
        self._lib.rl_mem_error(self._h, info)
        m = self.memories[info[0]]
        raise SimError(f"{m.owner} wrote {m.name} word {info[1]}, outside the "
                       f"{len(m.array)}-word memory")

    def add_memory(self, m: Memory) -> list[str]:
        """Serve ``m`` in the shim from now on, on its array (which must stay in place: the
        shim holds a pointer to it); returns the input ports its reads drive."""
        L = self.layout
        arr = m.array
        if arr.dtype != np.int64 or not arr.flags.c_contiguous or not arr.flags.writeable:
            raise RtlError(f"memory {m.name}: the Verilator back end serves a writable, "
                           f"contiguous int64 array, not {arr.dtype}")
        if not 1 <= m.word_bits <= 64:
            raise RtlError(f"memory {m.name}: words of {m.word_bits} bits (1 to 64)")

        def slot(name: str, output: bool, bits: int | None = None) -> int:
            p = L.by_name.get(name)
            if p is None or p.output != output:
                raise RtlError(f"memory {m.name}: '{name}' is not an "
                               f"{'output' if output else 'input'} of the block")
            if bits is not None and p.width != bits:
                raise RtlError(f"memory {m.name}: '{name}' has {p.width} bits, its "
                               f"{bits // m.word_bits} words {bits}")
            if output and p.words > 1 and bits is None:
                raise RtlError(f"memory {m.name}: '{name}' is wider than 64 bits")
            return p.slot

        k = self._lib.rl_mem_add(self._h, arr.ctypes.data, len(arr), m.word_bits)
        driven = []
        for r in m.reads:
            p = L.by_name.get(r.data)
            self._lib.rl_mem_read(self._h, k, slot(r.addr, True),
                                  slot(r.data, False, r.lanes * m.word_bits),
                                  p.words, r.lanes,
                                  -1 if r.unless is None else slot(r.unless, True))
            driven.append(r.data)
        for w in m.writes:
            if w.lanes > 64:
                raise RtlError(f"memory {m.name}: a write port of {w.lanes} lanes (at most 64)")
            self._lib.rl_mem_write(self._h, k, slot(w.we, True), slot(w.addr, True),
                                   slot(w.data, True, w.lanes * m.word_bits),
                                   -1 if w.mask is None else slot(w.mask, True), w.lanes)
        self.memories.append(m)
        return driven

    def close(self) -> None:
        """Finish the model (and its waveform file)."""
        if self._h is not None:
            self._lib.rl_free(self._h)
            self._h = None

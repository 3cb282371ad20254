"""A block's converted Verilog for the Verilator back end, kept so that a parameter set is
converted once.

MyHDL's elaboration and conversion of a block take seconds (the ADHDP datapath: about
1.5 s, longer than compiling a cached model takes to load), so the Verilog is kept under
the HDL cache (``.hdl/verilog/<top>-<key>.v``) by what it is converted from: the block's
name, its architecture (:func:`stable`, a ``repr`` of the :class:`Arch` the parameters are
derived from that every process writes alike), the
conversion's timescale, the versions of Python, MyHDL and numpy, and the text of every
Python source the conversion can read -- the layers ``rtl``, ``isa``, ``util`` and ``tlm``
and the block's machine package (the folder above its ``rtl/``). A change to any of them
converts again; the compiled library is then keyed by the Verilog itself
(:mod:`.build`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import inspect
import os
import platform
import tempfile
from pathlib import Path
from typing import Callable, Mapping

from myhdl import ResetSignal, Signal

from rlaccel.rtl import hdl
from rlaccel.rtl.clock import TIMESCALE

__all__ = ["converted", "stable", "LAYERS"]

#: the layers a block's conversion may read (besides its machine's package)
LAYERS = ("rtl", "isa", "util", "tlm")


@functools.cache
def _sources(folders: tuple[Path, ...]) -> str:
    """A digest of every ``.py`` file under ``folders``, by path and text."""
    h = hashlib.sha256()
    for folder in folders:
        for f in sorted(folder.rglob("*.py")):
            h.update(str(f).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def stable(x) -> str:
    """``repr`` of an architecture's values that is the same in every process (a set's
    elements, a mapping's keys sorted; dataclasses field by field)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (f"{type(x).__name__}(" + ", ".join(f"{f.name}={stable(getattr(x, f.name))}"
                                                   for f in dataclasses.fields(x)) + ")")
    if isinstance(x, Mapping):
        return "{" + ", ".join(sorted(f"{stable(k)}: {stable(v)}" for k, v in x.items())) + "}"
    if isinstance(x, (set, frozenset)):
        return "{" + ", ".join(sorted(stable(v) for v in x)) + "}"
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(stable(v) for v in x) + ")"
    return repr(x)


def _key(block: Callable, prm, top: str, clocked: bool) -> str:
    machine = Path(inspect.getfile(block.func)).resolve().parents[1]
    versions = [platform.python_version()] + [importlib.metadata.version(p)
                                               for p in ("myhdl", "numpy")]
    parts = (top, str(clocked), stable(prm.arch), TIMESCALE, *versions,
             _sources(tuple(hdl.ROOT / layer for layer in LAYERS) + (machine,)))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def converted(block: Callable, ports: dict, prm, top: str, *, clocked: bool = True) -> Path:
    """The Verilog of ``block`` (a MyHDL ``@block``) on ``ports`` for ``prm``, module
    ``top``: the kept file, or converted now and kept."""
    root = hdl.cache_dir() / "verilog"
    path = root / f"{top}-{_key(block, prm, top, clocked)}.v"
    if path.exists():
        return path
    root.mkdir(parents=True, exist_ok=True)
    clk, rst = Signal(bool(0)), ResetSignal(1, active=1, isasync=False)
    dut = block(clk, rst, **ports, prm=prm) if clocked else block(**ports, prm=prm)
    with tempfile.TemporaryDirectory(prefix=f".{top}-", dir=root) as scratch:
        vfile = hdl.convert(dut, top, Path(scratch), timescale=TIMESCALE)
        os.replace(vfile, path)
    return path

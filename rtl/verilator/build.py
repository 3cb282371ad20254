"""Compiling a converted block with Verilator into a shared library, once per Verilog.

:func:`library` verilates the MyHDL-converted module with the generated shim
(:mod:`.shim`) and links both into ``lib<top>.so``, kept under the HDL cache
(``.hdl/verilator/<top>-<key>/``, or ``$RLACCEL_HDL_CACHE/verilator``) the way numba keeps
its compiled loop: the key is a hash of the Verilog (its :func:`canonical` form: MyHDL's
conversion orders some lists differently from run to run), the shim, the waveform format,
the build flags and the versions of Verilator and the C++ compiler, so a parameter set is
compiled once and a new one (another architecture, a changed block, another tool) gets its
own library. Verilator's run-time objects (``verilated*.o``, the larger part of a small
block's compile time) are the same for every block of one set of flags and tools: the first
build keeps them (``.hdl/verilator/runtime-<key>/``) and later builds link those. The first
build of a key is announced through ``announce`` (the command line
prints it on stderr) with the time it took; a build is made in a scratch folder and renamed
into place, so an interrupted or concurrent build never leaves a half library under a key.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from rlaccel.rtl import hdl
from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.verilator.ports import Layout, verilog_ports
from rlaccel.rtl.verilator.shim import TRACES, shim_source

__all__ = ["library", "canonical", "verilator_version", "BUILD_FLAGS"]

#: what the model is built with: warnings are lint's business (``rlaccel rtl lint``), MyHDL's
#: loops need unrolling (:data:`rtl.hdl.LINT_UNROLL`), and every register starts at zero
#: (the blocks' resets set them anyway; zero makes runs repeatable)
BUILD_FLAGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style", *hdl.LINT_UNROLL,
               "--x-assign", "0", "--x-initial", "0",
               "-CFLAGS", "-fPIC", "-LDFLAGS", "-shared", "-LDFLAGS", "-Wl,-Bsymbolic")
#: C++ compile jobs of one build (the machine's two cores)
JOBS = 2


@functools.cache
def verilator_version() -> str:
    """``verilator --version``'s line (ToolMissing when it is not installed)."""
    out = subprocess.run([hdl.tool("verilator"), "--version"], capture_output=True,
                         text=True).stdout.strip()
    return out or "verilator (unknown version)"


@functools.cache
def _compiler_version() -> str:
    cxx = shutil.which("g++") or hdl.tool("c++")
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else cxx


_SENSITIVITY = re.compile(r"^(\s*always @\()(.*)(\) begin.*)$")
_CONST_NBA = re.compile(r"^\s*[\w\[\]]+ <= [-\w']+;$")
_DECL = re.compile(r"^(input|output|reg|wire)\b[^;]*;$")


def canonical(text: str) -> str:
    """The Verilog as one key for every conversion of the same block: MyHDL writes the
    signals of a sensitivity list, the constant assignments of a reset and the declarations
    in an order that changes from run to run (it iterates sets of signals), none of which
    changes what the Verilog means; here each such list or run of lines is sorted, and the
    conversion's ``// File:`` and ``// Date:`` lines are left out."""
    out: list[str] = []
    run: list[str] = []
    kind = None
    for line in text.splitlines():
        if line.startswith(("// File:", "// Date:")):
            continue
        m = _SENSITIVITY.match(line)
        if m:
            line = m.group(1) + ", ".join(sorted(m.group(2).split(", "))) + m.group(3)
        k = "nba" if _CONST_NBA.match(line) else "decl" if _DECL.match(line) else None
        if k != kind:
            out += sorted(run)
            run = []
            kind = k
        if k is None:
            out.append(line)
        else:
            run.append(line)
    out += sorted(run)
    return "\n".join(out) + "\n"


def _step(cmd: list[str], cwd: Path, top: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if proc.returncode:
        tail = (proc.stdout + proc.stderr)[-4000:]
        raise RtlError(f"verilator could not build {top} ({' '.join(cmd)}):\n{tail}")


def _runtime_key(flags: tuple[str, ...]) -> str:
    """The key of Verilator's run-time library objects (``verilated*.o``): the same for
    every block built with ``flags`` by one Verilator and one compiler."""
    parts = (" ".join(flags), verilator_version(), _compiler_version())
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _keep_runtime(obj: Path, runtime: Path) -> None:
    """Keep a build's run-time objects for the next builds of the same key (renamed into
    place whole, as a library is)."""
    objs = sorted(obj.glob("verilated*.o"))
    if not objs or runtime.exists():
        return
    with tempfile.TemporaryDirectory(prefix=".runtime-", dir=runtime.parent) as scratch:
        keep = Path(scratch) / "keep"
        keep.mkdir()
        for o in objs:
            shutil.copy2(o, keep / o.name)
        try:
            os.rename(keep, runtime)
        except OSError:
            pass                                  # another build kept them first


def library(vfile: Path, top: str, trace: str | None = None,
            announce: Callable[[str], None] | None = None) -> tuple[Path, Layout]:
    """The compiled library of module ``top`` in ``vfile`` (built now if its key is new)
    and its port layout. ``trace``: None, ``"vcd"`` or ``"fst"``."""
    if trace not in TRACES:
        raise RtlError(f"unknown waveform format '{trace}': choose vcd or fst")
    layout = Layout(verilog_ports(vfile, top))
    verilog = Path(vfile).read_text()
    shim = shim_source(top, layout, trace)
    flags = (*BUILD_FLAGS, *TRACES[trace])
    parts = (canonical(verilog), shim, " ".join(flags), verilator_version(),
             _compiler_version())
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]
    root = hdl.cache_dir() / "verilator"
    home = root / f"{top}-{key}"
    lib = home / f"lib{top}.so"
    if lib.exists():
        return lib, layout
    root.mkdir(parents=True, exist_ok=True)
    version = verilator_version().split(" rev")[0]
    if announce is not None:
        announce(f"compiling {top} with {version} (first use of this Verilog; cached in "
                 f"{home}) ...")
    wall = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f".{top}-", dir=root) as scratch:
        work = Path(scratch)
        (work / f"{top}.v").write_text(verilog)
        (work / "rl_shim.cpp").write_text(shim)
        cmd = [hdl.tool("verilator"), "--cc", "--exe", "--top-module", top, "-Mdir", "obj",
               "-o", f"lib{top}.so", *flags, f"{top}.v", "rl_shim.cpp"]
        _step(cmd, work, top)
        runtime = root / f"runtime-{_runtime_key(flags)}"
        have = sorted(runtime.glob("*.o"))
        for o in have:             # after verilating: newer than the makefile they depend on
            shutil.copyfile(o, work / "obj" / o.name)
        make = [hdl.tool("make"), "-C", "obj", "-f", f"V{top}.mk",
                "-j", str(JOBS)]
        _step(make, work, top)
        built = work / "obj" / f"lib{top}.so"
        if not built.exists():
            raise RtlError(f"verilator could not build {top}: no {built.name} after "
                           f"{' '.join(make)}")
        if not have:
            _keep_runtime(work / "obj", runtime)
        keep = work / "keep"
        keep.mkdir()
        shutil.copy2(built, keep / lib.name)
        shutil.copy2(work / f"{top}.v", keep / f"{top}.v")
        shutil.copy2(work / "rl_shim.cpp", keep / "rl_shim.cpp")
        try:
            os.rename(keep, home)
        except OSError:
            if not lib.exists():                # not another build's: a real failure
                raise
    if announce is not None:
        announce(f"compiled {top} with {version} in {time.perf_counter() - wall:.1f} s")
    return lib, layout

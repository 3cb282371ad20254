"""numba, when it is there: the one switch between compiled and plain-Python execution.

``HAVE_NUMBA`` is True when numba imports and its JIT is not disabled (``NUMBA_DISABLE_JIT=1``
turns it off, which the tests use to run the same code as plain Python). :func:`njit` is
``numba.njit`` with on-disk caching (in a folder named after a hash of the compiled loop's
sources, so that no cached function outlives a change of a kernel it inlines), or the
identity: every function it decorates is written so that CPython runs it with the same
results, bit for bit (slower).
"""

from __future__ import annotations

__all__ = ["HAVE_NUMBA", "njit", "warm", "announce_compiles", "quiet_compiles"]

import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Callable

try:
    import numba as _numba
    HAVE_NUMBA = not _numba.config.DISABLE_JIT
except ImportError:            # pragma: no cover - numba is a dependency
    _numba = None
    HAVE_NUMBA = False

#: the sources the compiled loop is built from: numba keys a cached function on its own file
#: only, so a changed kernel would leave the loop that inlines it stale; the cache lives in a
#: folder named after a hash of all of them instead (and of the folders of the machines'
#: kernel modules, :func:`_family_sources`)
_SOURCES = (Path(__file__).parent, Path(__file__).parents[1] / "families" / "base")


def _family_sources() -> list[Path]:
    """The folders of the machines' kernel modules (their descriptors' ``kernels``, read
    without importing them: :mod:`.dispatch` calls them from the loop)."""
    from rlaccel.isa.machine import machines
    out = []
    for m in machines().values():
        if m.family is not None and m.kernels and m.path is not None:
            parts = m.kernels.partition(":")[0].split(".")
            out.append(m.path.joinpath(*parts[:-1]))
    return out


def _cache_dir() -> str:
    h = hashlib.sha256()
    for folder in (*_SOURCES, *_family_sources()):
        for f in sorted(folder.glob("*.py")):
            h.update(f.name.encode())
            h.update(f.read_bytes())
    root = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), f"rlaccel-numba-{os.getuid() if hasattr(os, 'getuid') else 0}")
    return os.path.join(root, h.hexdigest()[:16])


if HAVE_NUMBA:
    _numba.config.CACHE_DIR = _cache_dir()


def njit(fn=None, *, inline: bool = False, nrt: bool = True):
    """``numba.njit(cache=True)`` (``inline``: numba's ``inline="always"``), or nothing when
    numba is absent or disabled. ``nrt=False`` compiles without numba's reference counting
    (``_nrt=False``): for the loop's functions, which never allocate and only borrow the
    arrays they are passed, so that no call pays atomic increments and decrements of its
    array arguments (half of the loop's time when they were counted)."""
    def wrap(f):
        if not HAVE_NUMBA:
            return f
        opts = {"cache": True}
        if inline:
            opts["inline"] = "always"
        if not nrt:
            opts["_nrt"] = False
        return _numba.njit(**opts)(f)
    return wrap(fn) if fn is not None else wrap


def warm() -> None:
    """Set numba's compiler up in this process now: its CPU target's typing and lowering
    registries, which the first load of any compiled function pays otherwise (a third of a
    second of CPU; numba then imports its numpy and linear-algebra support). A process that
    forks workers calls it once for all of them (``rlaccel sweep``)."""
    if HAVE_NUMBA:
        from numba.core.registry import cpu_target
        cpu_target.target_context.refresh()


#: where the compile announcements go (None: nowhere), and whether numba has our listener
_notify: Callable[[str], None] | None = None
_listening = False


def announce_compiles(notify: Callable[[str], None]) -> None:
    """Call ``notify`` with a line when numba starts compiling a function of rlaccel (not
    found in the on-disk cache: the first run after an install or a change of the compiled
    sources) and with its CPU time when it ends; nested compiles are part of the outermost.
    One listener per process, announcing to the latest ``notify`` until
    :func:`quiet_compiles` (the command line announces for the duration of a run)."""
    global _notify, _listening
    _notify = notify
    if not HAVE_NUMBA or _listening:
        return
    from numba.core import event

    class Announce(event.Listener):
        depth, cpu, wall = 0, 0.0, 0.0

        def on_start(self, ev):
            if self.depth == 0:
                f = ev.data["dispatcher"].py_func
                self.name = f"{f.__module__.removeprefix('rlaccel.')}.{f.__qualname__}"
                self.cpu, self.wall = time.process_time(), time.perf_counter()
                if _notify is not None:
                    _notify(f"compiling {self.name} with numba (once: later runs load it "
                            f"from {_numba.config.CACHE_DIR}) ...")
            self.depth += 1

        def on_end(self, ev):
            self.depth -= 1
            if self.depth == 0 and _notify is not None:
                _notify(f"compiled {self.name} in {time.process_time() - self.cpu:.1f} s of "
                        f"CPU ({time.perf_counter() - self.wall:.1f} s)")

    event.register("numba:compile", Announce())
    _listening = True


def quiet_compiles() -> None:
    """Stop announcing compiles (:func:`announce_compiles`)."""
    global _notify
    _notify = None

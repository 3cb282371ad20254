"""Memory a setting asks for, checked before it is allocated.

A knob that sizes an allocation (a network's widths, a replay buffer, a sweep's points)
calls :func:`reserve` with the bytes it will need before anything is built; more than this
process may use raises :class:`~rlaccel.util.errors.ResourceError` naming the knob, instead
of a ``MemoryError`` deep inside numpy or the operating system's out-of-memory killer::

    learning.hidden = [100000, 100000]: the networks and their optimiser state would take
    74.5 GiB of memory, more than the 2.6 GiB this process can still use; make it smaller

What this process may use is the smaller of the address space left under its limit
(``ulimit -v``, ``RLIMIT_AS``) and the memory the system has available (Linux's
``MemAvailable`` plus free swap); where neither is known, nothing is refused.
"""

from __future__ import annotations

import os

from rlaccel.util.errors import ResourceError

__all__ = ["reserve", "available_bytes", "size_text", "ARRAY_OVERHEAD"]

#: below this, an estimate is not worth checking (every run holds this much anyway)
_SMALL = 32 << 20

#: what an estimate multiplies: temporaries, copies and allocator slack over the arrays a
#: knob sizes directly
ARRAY_OVERHEAD = 2


def size_text(n: float) -> str:
    """``74.5 GiB``, ``286 MiB``, ``512 bytes``."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:,.1f} {unit}" if v < 100 else f"{v:,.0f} {unit}"
    return f"{int(n)} bytes"


def _address_space_left() -> int | None:
    try:
        import resource
    except ImportError:                                    # pragma: no cover - not POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        used = 0
    return max(soft - used, 0)


def _system_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            info = {k: int(v.split()[0]) * 1024 for k, v in
                    (line.split(":", 1) for line in f if ":" in line)}
    except (OSError, ValueError):
        return None
    if "MemAvailable" not in info:
        return None
    return info["MemAvailable"] + info.get("SwapFree", 0)


def available_bytes() -> int | None:
    """The memory this process can still take (None: no limit is known)."""
    known = [v for v in (_address_space_left(), _system_available()) if v is not None]
    return min(known) if known else None


def reserve(nbytes: float, knob: str, what: str) -> None:
    """Refuse a setting whose allocation, ``nbytes``, is more than this process can take:
    ``ResourceError("KNOB: WHAT would take N of memory, more than the M this process can
    still use; make it smaller")``. ``knob`` names the setting as the user wrote it (``learning.hidden
    = [100000, 100000]``), ``what`` the allocation (``the networks and their optimiser
    state``)."""
    if nbytes < _SMALL:
        return
    left = available_bytes()
    if left is None or nbytes <= left:
        return
    raise ResourceError(f"{knob}: {what} would take {size_text(nbytes)} of memory, more than "
                        f"the {size_text(left)} this process can still use; make it smaller")

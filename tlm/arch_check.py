"""An architecture file judged as the simulator judges it, for the verbs that never simulate.

``rlaccel run`` builds a platform, which reads and judges every table of the architecture
(types, ranges, unknown tables and keys: :meth:`rlaccel.tlm.platform.Platform.check`). The
verbs that never build one -- ``asm``, ``dis``, ``isa``, ``cosim``, ``rtl`` -- call
:func:`check_arch` on the architecture they were given, so a bad file gets the same message
from every verb. The architectures the machines ship (``machines/<name>/archs``) are judged
by their tests and skipped here: the check loads the simulator (numba), seconds a verb such
as ``asm`` need not spend on them.
"""

from __future__ import annotations

from pathlib import Path

from rlaccel.isa.arch import Arch, arch_files, load_arch

__all__ = ["check_arch", "installed"]


def installed(arch: Arch) -> bool:
    """Whether ``arch`` is one of the files a machine ships (its ``archs`` folder)."""
    if not arch.path:
        return True                         # built in code, not read from a user's file
    try:
        here = Path(arch.path).resolve()
        return any(here == p.resolve() for p in arch_files().values())
    except OSError:
        return False


def check_arch(arch: Arch | str | Path | None) -> Arch | None:
    """``arch`` (an :class:`Arch`, or a name or path to load) judged by the simulator's own
    validator unless it is installed; returns it. An ArchError names what is wrong."""
    if arch is None:
        return None
    a = arch if isinstance(arch, Arch) else load_arch(arch)
    if not installed(a):
        from rlaccel.tlm.platform import Platform
        Platform.check(a)
    return a

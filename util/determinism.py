"""What a float32 run's bits depend on besides its seed, pinned: the BLAS kernel and threads.

numpy's matrix products are OpenBLAS's (numpy's wheel, built with ``DYNAMIC_ARCH``): at import
OpenBLAS picks the kernel for the CPU it finds, and each kernel forms float32 sums in its own
order, so the same seed follows another trajectory on another CPU or OpenBLAS version. Two
places meet it: FIXAR's float32 reference, and MADDPG's fp32 machine, whose products are
BLAS calls (machines/maddpg/mlp.py). Measured (HalfCheetah-v5, seed 1, 500 warm-up steps, one
evaluation episode; ``python machines/fixar/bench/fig7.py kernels``): after 500 training
steps FIXAR's float32 reference returns -515.7 with the SkylakeX kernel (what OpenBLAS picks on
an AVX-512 host), -472.4 with Haswell's and -455.4 with Sandybridge's; one or two BLAS threads
gave the same bits. MADDPG's golden simple-tag run differs from the 7th digit of its returns
between an AVX-512 host and an AVX2-only one (tests/golden/maddpg_*.json).

:func:`pin_kernel` runs when ``rlaccel`` is imported: unless the environment already names a
kernel (``OPENBLAS_CORETYPE``), numpy is loaded, or the CPU lacks AVX2, it asks OpenBLAS for
Haswell's kernel (AVX2), so a run gives the same bits on any x86-64 host with AVX2, whatever
OpenBLAS would pick there. Import rlaccel before numpy for that (the command line does); on a
host without AVX2 the bits are that host's kernel's.

It also gives the BLAS one thread (:func:`one_thread`) unless the environment names a count
(any of :data:`THREADS`): the simulator runs on one thread, and OpenBLAS's threads, which wait
for work by spinning, cost CPU wherever a product is too small to share and, on a machine whose
other cores are busy (the other workers of a sweep), wall time too. Measured on FIXAR
(``rlaccel run machines/fixar/programs/halfcheetah.toml --steps 500 --set
learning.start_steps=300 -q``, 200 training steps; docs/speed.md): two threads took more CPU
than one in every run and, with the other core busy, up to five times the wall time.

:func:`pin` fixes the kernel and every BLAS to one thread (:data:`PINNED`), and refuses after
numpy has loaded; the benchmark scripts call it on their first lines. Fixed-point machines'
products are exact (integers in float64 below 2**52), so their bits never depend on the kernel.
"""

from __future__ import annotations

import os
import sys

__all__ = ["PINNED", "THREADS", "one_thread", "pin", "pin_kernel", "pinned"]

#: the variables that set the thread counts of the BLAS libraries numpy and scipy may load
THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: the environment a reproducible float32 run needs before numpy loads OpenBLAS
PINNED = {"OPENBLAS_CORETYPE": "Haswell", **{v: "1" for v in THREADS}}


def pinned(environ=None) -> bool:
    """Whether the environment holds :data:`PINNED`."""
    env = os.environ if environ is None else environ
    return all(env.get(k) == v for k, v in PINNED.items())


def pin(environ=None) -> dict:
    """Put :data:`PINNED` into the environment (``os.environ``) and return it; an
    RlaccelError if numpy was imported before with other values (its BLAS has already chosen
    its kernel and threads)."""
    env = os.environ if environ is None else environ
    if environ is None and "numpy" in sys.modules and not pinned(env):
        from rlaccel.util.errors import RlaccelError
        raise RlaccelError("determinism.pin(): numpy was imported before the BLAS kernel and "
                           "threads were pinned; call pin() before importing numpy (or set "
                           + ", ".join(f"{k}={v}" for k, v in PINNED.items()) + ")")
    env.update(PINNED)
    return dict(PINNED)


def _avx2() -> bool:
    """Whether this CPU has AVX2, read from /proc/cpuinfo (False where there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return " avx2" in line
    except OSError:
        pass
    return False


def pin_kernel(environ=None) -> bool:
    """Ask OpenBLAS for :data:`PINNED`'s kernel, unless ``OPENBLAS_CORETYPE`` is set, numpy is
    loaded (its BLAS has chosen) or the CPU lacks AVX2; whether it did."""
    env = os.environ if environ is None else environ
    if "OPENBLAS_CORETYPE" in env or (environ is None and "numpy" in sys.modules) \
            or not _avx2():
        return False
    env["OPENBLAS_CORETYPE"] = PINNED["OPENBLAS_CORETYPE"]
    return True


def one_thread(environ=None) -> bool:
    """Set every variable of :data:`THREADS` to 1, unless one of them is set (the user's
    choice) or numpy is loaded (its BLAS has started its threads); whether it did."""
    env = os.environ if environ is None else environ
    if any(v in env for v in THREADS) or (environ is None and "numpy" in sys.modules):
        return False
    env.update({v: "1" for v in THREADS})
    return True

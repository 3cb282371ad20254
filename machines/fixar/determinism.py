"""What a float32 run's bits depend on besides its seed, pinned: the BLAS kernel and threads.

The float32 reference's matrix products are OpenBLAS's (numpy's wheel, built with
``DYNAMIC_ARCH``): at import OpenBLAS picks the kernel for the CPU it finds, and each kernel
forms float32 sums in its own order, so the same seed follows another trajectory on another
CPU or OpenBLAS version. Measured here (HalfCheetah-v5, seed 1, 500 warm-up steps, one
evaluation episode; ``python machines/fixar/bench/fig7.py kernels``): after 500 training
steps the evaluation return is -515.7 with the SkylakeX kernel (what OpenBLAS picks on this
AVX-512 host), -472.4 with Haswell's and -455.4 with Sandybridge's; one or two BLAS threads
gave the same bits. That is the cause of the reference's earlier difference between two trees
(seed 1: 2,146 and 1,792.5 at 100k steps): a float32 run repeats only on the same kernel.

:func:`pin` fixes the kernel to Haswell's (AVX2: the same bits on any x86-64 host with AVX2,
whatever OpenBLAS would pick) and every BLAS to one thread. It must run before numpy is
imported (OpenBLAS reads the environment once); the benchmark scripts call it on their first
lines. The simulated machine's products are exact (integers in float64 below 2**52), so its
bits never depended on the kernel.
"""

from __future__ import annotations

import os
import sys

__all__ = ["PINNED", "pin", "pinned"]

#: the environment a reproducible float32 run needs before numpy loads OpenBLAS
PINNED = {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "1",
          "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


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

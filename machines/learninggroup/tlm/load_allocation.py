"""The load allocation unit (the LearningGroup paper, section III-C, Fig. 6; section IV-D, Table I).

It hands every core its rows of the (sparse) weight matrix with their activations, reading
the unmasked weights from the global parameter memory at addresses it computes from the
sparse row memory:

* **Row-based** (LearningGroup): the rows are split evenly over the C cores, in order
  (contiguous blocks whose sizes differ by at most one), whatever their workloads. Since
  every row keeps a column with probability 1/G, each core's workload tends to
  ``1/(C G)`` of the dense matrix.
* **Threshold-based** (the baseline of Table I): threshold = total unmasked weights / C;
  rows go to a core in order until its assigned weights exceed the threshold, then to the
  next; the last core takes the rest.

Table I reports the maximum deviation of a core's workload from the theoretical
``total / C`` (:func:`max_deviation`), tracked over training.

Addresses (row-major ``M x N`` weights at ``base``): the forward row i's weights are at
``base + i*N + nz`` (the output channel N is the row offset); the transposed matrix's row j
(an output) reads ``base + nz*N + j`` for its non-zero inputs ``nz``, so back-propagation
needs no transposed copy (section III-C: "using input channel as offset").
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError

__all__ = ["row_based", "threshold_based", "core_loads", "max_deviation", "row_addresses",
           "transposed_addresses", "SCHEMES", "allocate"]

SCHEMES = ("row", "threshold")


def _cores(cores: int) -> int:
    if cores < 1:
        raise SimError(f"load allocation needs at least one core, not {cores}")
    return cores


def row_based(workloads, cores: int = 3) -> list[np.ndarray]:
    """Contiguous, equal blocks of rows (the first ``M % C`` cores get one more)."""
    n = len(np.asarray(workloads))
    return [np.asarray(b, dtype=np.int64) for b in np.array_split(np.arange(n),
                                                                  _cores(cores))]


def threshold_based(workloads, cores: int = 3) -> list[np.ndarray]:
    """Rows in order to a core until its weights exceed total/C; the last core the rest."""
    wl = np.asarray(workloads, dtype=np.int64)
    _cores(cores)
    threshold = wl.sum() / cores
    out, start = [], 0
    for _ in range(cores - 1):
        acc, end = 0, start
        while end < wl.size and acc <= threshold:
            acc += wl[end]
            end += 1
        out.append(np.arange(start, end, dtype=np.int64))
        start = end
    out.append(np.arange(start, wl.size, dtype=np.int64))
    return out


def allocate(workloads, cores: int = 3, scheme: str = "row") -> list[np.ndarray]:
    """The rows of each core under ``scheme`` (``"row"`` or ``"threshold"``)."""
    if scheme == "row":
        return row_based(workloads, cores)
    if scheme == "threshold":
        return threshold_based(workloads, cores)
    raise SimError(f"unknown allocation scheme {scheme!r} (known: {', '.join(SCHEMES)})")


def core_loads(workloads, allocation: list[np.ndarray]) -> np.ndarray:
    """Unmasked weights each core receives."""
    wl = np.asarray(workloads, dtype=np.int64)
    return np.array([int(wl[rows].sum()) for rows in allocation], dtype=np.int64)


def max_deviation(workloads, allocation: list[np.ndarray]) -> float:
    """Largest ``|load_c - total/C|`` over the cores, in weights (Table I's measure)."""
    loads = core_loads(workloads, allocation)
    return float(np.abs(loads - loads.sum() / len(loads)).max())


def row_addresses(row: int, nz, cols: int, base: int = 0) -> np.ndarray:
    """Global-parameter-memory addresses of forward row ``row``'s unmasked weights."""
    return base + row * cols + np.asarray(nz, dtype=np.int64)


def transposed_addresses(col: int, nz, cols: int, base: int = 0) -> np.ndarray:
    """Addresses of the transposed matrix's row ``col`` (the weights ``W[nz, col]``)."""
    return base + np.asarray(nz, dtype=np.int64) * cols + col

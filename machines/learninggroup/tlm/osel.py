"""The sparse data encoder with OSEL, the baseline encoder, and the sparse row memory
(the LearningGroup paper, section III-B, Fig. 5; section IV-C, Fig. 10).

The encoder receives one max index of IG per cycle (the group of input row i) and the max
indexes of every OG column. For each row it looks up the status of that group's tuple in
the sparse row memory:

* **Index Miss** (status X): compare the max index with the N column max indexes in
  parallel (the bitvector), count the workload, list the non-zero indexes, write the tuple
  and set the status.
* **Index Hit** (status 0): the tuple exists; only the index list gets the max index.

Every row's max index goes into the index list, which tells the load allocation unit which
tuple a row uses. OSEL therefore writes at most G tuples. The **baseline** encoder has no
status: it computes and writes a tuple for every row (M tuples, no index list).

The transposed matrix (back-propagation) is encoded the same way with the roles swapped:
its rows are the N outputs keyed by OG's column max indexes, its bitvectors are M wide over
IG's row max indexes.

:func:`sparse_generation` is the whole of Fig. 10(a): MaxIndex (finding the max indexes),
the encoding loop (Index Miss and Index Hit), and Weight Compression (reading the unmasked
weights); :func:`footprint` is Fig. 10(b), in bits. Cycle costs come from
:mod:`.timing`; the encoding loop advances the cycle count row by row and keeps a trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.machines.learninggroup.tlm import grouping
from rlaccel.machines.learninggroup.tlm.timing import (EncoderParams, compression_cycles, hit_cycles, max_index_cycles,
                     miss_cycles, scan_compression_cycles)

__all__ = ["SparseTuple", "SparseRowMemory", "EncoderCycles", "Encoding", "encode_osel",
           "encode_baseline", "mask_baseline", "sparse_generation", "footprint", "METHODS"]

METHODS = ("osel", "baseline")


@dataclass(frozen=True)
class SparseTuple:
    """One entry of the sparse row memory."""

    bitvector: np.ndarray      # bool, one bit per column of the (possibly transposed) matrix
    nz: np.ndarray             # the non-zero indexes, ascending
    workload: int              # len(nz)
    max_index: int             # the group this bitvector belongs to


@dataclass
class SparseRowMemory:
    """Tuples by slot and the index list (row -> slot). OSEL's slots are groups; the
    baseline's are rows."""

    width: int
    tuples: dict[int, SparseTuple] = field(default_factory=dict)
    index_list: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def row(self, i: int) -> SparseTuple:
        """The tuple of matrix row ``i``."""
        return self.tuples[int(self.index_list[i])]

    @property
    def rows(self) -> int:
        return len(self.index_list)

    def workloads(self) -> np.ndarray:
        """The workload (unmasked weights) of every row."""
        wl = {s: t.workload for s, t in self.tuples.items()}
        return np.array([wl[int(s)] for s in self.index_list], dtype=np.int64)

    def mask(self) -> np.ndarray:
        """The rows x width mask the memory encodes."""
        if not self.rows:
            return np.zeros((0, self.width), bool)
        slots = np.array(sorted(self.tuples), np.int64)
        idx = np.asarray(self.index_list, np.int64)
        at = np.minimum(np.searchsorted(slots, idx), max(slots.size - 1, 0))
        if not slots.size or np.any(slots[at] != idx):         # a row without a tuple
            return np.stack([self.row(i).bitvector for i in range(self.rows)])
        return np.stack([self.tuples[int(k)].bitvector for k in slots])[at]


@dataclass
class EncoderCycles:
    """Fig. 10(a)'s breakdown."""

    max_index: int = 0
    index_miss: int = 0
    index_hit: int = 0
    weight_compression: int = 0
    misses: int = 0
    hits: int = 0

    @property
    def total(self) -> int:
        return self.max_index + self.index_miss + self.index_hit + self.weight_compression

    def as_dict(self) -> dict:
        return {"max_index": self.max_index, "index_miss": self.index_miss,
                "index_hit": self.index_hit, "weight_compression": self.weight_compression,
                "total": self.total, "misses": self.misses, "hits": self.hits}


@dataclass
class Encoding:
    """What an encoder produced: the memory, its cycles, and the trace of the encoding loop
    as ``(row, max_index, "miss" | "hit", first_cycle, cycles)``."""

    method: str
    srm: SparseRowMemory
    cycles: EncoderCycles
    trace: list[tuple[int, int, str, int, int]]


def _check(row_idx, col_idx, groups: int, p: EncoderParams):
    row_idx = np.asarray(row_idx, dtype=np.int64)
    col_idx = np.asarray(col_idx, dtype=np.int64)
    grouping.check_groups(groups, p.max_groups)
    if col_idx.size > p.bitvector_bits:
        raise SimError(f"a layer with {col_idx.size} columns is wider than the "
                       f"{p.bitvector_bits}-bit bitvector of the sparse row memory")
    for name, idx in (("row", row_idx), ("column", col_idx)):
        if idx.size and (idx.min() < 0 or idx.max() >= groups):
            raise SimError(f"a {name} max index is outside 0..{groups - 1}")
    return row_idx, col_idx


def _tuple(group: int, col_idx: np.ndarray) -> SparseTuple:
    bv = grouping.bitvector(group, col_idx)
    nz = np.flatnonzero(bv)
    return SparseTuple(bv, nz, int(nz.size), int(group))


def _encode(method: str, row_idx, col_idx, groups: int, p: EncoderParams,
            start_cycle: int) -> Encoding:
    """The encoding loop over the rows' max indexes: OSEL keeps one tuple per max index
    (a later row of the same index is a hit, its index-list entry naming the tuple), the
    baseline one per row (every row a miss)."""
    row_idx, col_idx = _check(row_idx, col_idx, groups, p)
    share = method == "osel"
    srm = SparseRowMemory(width=col_idx.size,
                          index_list=row_idx.copy() if share else np.arange(row_idx.size))
    cyc = EncoderCycles()
    trace = []
    now = start_cycle
    for i, g in enumerate(row_idx.tolist()):
        slot = g if share else i
        if share and slot in srm.tuples:
            n = hit_cycles(p)
            cyc.index_hit += n
            cyc.hits += 1
            trace.append((i, g, "hit", now, n))
        else:
            srm.tuples[slot] = _tuple(g, col_idx)
            n = miss_cycles(srm.tuples[slot].workload, p)
            cyc.index_miss += n
            cyc.misses += 1
            trace.append((i, g, "miss", now, n))
        now += n
    return Encoding(method, srm, cyc, trace)


def encode_osel(row_idx, col_idx, groups: int, p: EncoderParams = EncoderParams(),
                start_cycle: int = 0) -> Encoding:
    """The OSEL loop over the rows' max indexes (module docstring)."""
    return _encode("osel", row_idx, col_idx, groups, p, start_cycle)


def encode_baseline(row_idx, col_idx, groups: int, p: EncoderParams = EncoderParams(),
                    start_cycle: int = 0) -> Encoding:
    """The baseline: every row computes and writes its own tuple (slot = row)."""
    return _encode("baseline", row_idx, col_idx, groups, p, start_cycle)


def mask_baseline(row_idx, col_idx, groups: int, p: EncoderParams = EncoderParams(),
                  max_index: int = 0) -> Encoding:
    """The baseline read as the paper's "generates the mask matrix every iteration"
    (section IV-C): every row computes its bitvector and writes a compact tuple (bitvector,
    workload, max index; no non-zero indexes, section IV-C's "compact tuple format"), so
    Weight Compression finds each row's unmasked weights by scanning its bitvector
    (:func:`.timing.scan_compression_cycles`). ``max_index``: the MaxIndex cycles, the same
    work as OSEL's."""
    compact = replace(p, store_nz_indexes=False)
    enc = _encode("baseline", row_idx, col_idx, groups, compact, max_index)
    enc.cycles.max_index = max_index
    enc.cycles.weight_compression = scan_compression_cycles(enc.srm.rows, enc.srm.width, p)
    return enc


def sparse_generation(IG: np.ndarray, OG: np.ndarray, method: str = "osel",
                      p: EncoderParams = EncoderParams(), *,
                      transposed: bool = False) -> Encoding:
    """Fig. 10(a) for one layer: MaxIndex, then the encoding loop, then Weight Compression.
    ``transposed`` encodes W^T (rows = outputs) for back-propagation."""
    if method not in METHODS:
        raise SimError(f"unknown sparse encoder {method!r} (known: {', '.join(METHODS)})")
    IG, OG = np.asarray(IG), np.asarray(OG)
    if IG.ndim != 2 or OG.ndim != 2 or IG.shape[1] != OG.shape[0]:
        raise SimError(f"grouping matrices IG {IG.shape} and OG {OG.shape} do not agree "
                       f"(need M x G and G x N)")
    M, G = IG.shape
    N = OG.shape[1]
    rows, cols = grouping.row_max_indexes(IG), grouping.col_max_indexes(OG)
    if transposed:
        rows, cols = cols, rows
    encode = encode_osel if method == "osel" else encode_baseline
    mi = max_index_cycles(M, N, G, p)
    enc = encode(rows, cols, G, p, start_cycle=mi)
    enc.cycles.max_index = mi
    enc.cycles.weight_compression = compression_cycles(enc.srm.workloads(), p)
    return enc


def footprint(enc: Encoding, groups: int, p: EncoderParams = EncoderParams()) -> dict:
    """Fig. 10(b), in bits: the unmasked weights, both grouping matrices, the sparse row
    memory (tuples without and with their non-zero indexes) and the index list (OSEL only),
    with ``total`` (everything stored per ``p.store_nz_indexes``) and ``dense`` (the whole
    weight matrix)."""
    srm = enc.srm
    M, N = srm.rows, srm.width
    wl = srm.workloads()
    head = p.bitvector_bits + p.workload_bits + p.max_index_bits
    nz_bits = sum(t.workload for t in srm.tuples.values()) * p.nz_index_bits
    out = {"weights": int(wl.sum()) * p.weight_bits,
           "grouping": (M + N) * groups * p.grouping_bits,
           "srm_tuples": len(srm.tuples) * head,
           "srm_nz_indexes": nz_bits if p.store_nz_indexes else 0,
           "index_list": M * p.max_index_bits if enc.method == "osel" else 0}
    out["total"] = sum(out.values())
    out["dense"] = M * N * p.weight_bits
    return out

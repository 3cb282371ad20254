"""A layer as the cores hold it after weight compression (the LearningGroup paper, sections III-C, III-D):
the unmasked weights of every row, the rows split over the cores, and the per-row workloads
the core controller schedules.

``PackedLayer.build`` is the load allocation unit's work (``wcomp``): from the weights in the
global parameter memory and the sparse row memory of the mask (:mod:`.osel`; none for a dense
layer), with the transposed tuples for back-propagation (W read in place, section III-C),
row-based over the cores (:func:`.load_allocation.row_based`). The products run in
:mod:`.kernels`; :func:`.core.sparse_forward` is the same arithmetic in plain numpy, which
the tests compare them with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.machines.learninggroup.tlm import controller, kernels, timing
from rlaccel.machines.learninggroup.tlm.load_allocation import row_based
from rlaccel.machines.learninggroup.tlm.osel import SparseRowMemory

__all__ = ["PackedLayer", "PAD"]

#: the kernels' group widths are padded to a multiple of this (their vector loops then run
#: no scalar remainder)
PAD = 8


@dataclass
class PackedLayer:
    """The compressed weights of one (possibly transposed) layer of ``rows`` x ``cols``.

    ``row_group[r]`` -- the group whose columns row r keeps (-1: none); ``gptr``/``gcols`` --
    each group's columns, ascending (columns no row keeps form a last group, so every output
    is written); ``row_off`` -- where row r's packed weights start in ``vals`` (float32
    holding binary16); ``cores`` -- the row boundaries of the cores; ``workloads`` -- the
    unmasked weights per row; ``bias`` -- the forward layer's bias (empty when transposed).

    The kernels (:mod:`.kernels`) read a copy laid out for them, made from these:
    ``kvals`` -- every row's weights padded with zeros to a multiple of :data:`PAD` (its
    group's padded width), ``kbias`` -- the bias in the kernels' column order (empty when
    transposed), ``meta`` -- the integer arrays in one (:func:`.kernels.layout`), so that a
    call passes three arrays instead of eight.
    """

    rows: int
    cols: int
    transposed: bool
    row_group: np.ndarray
    row_off: np.ndarray
    vals: np.ndarray
    gptr: np.ndarray
    gcols: np.ndarray
    cores: np.ndarray
    workloads: np.ndarray
    bias: np.ndarray
    sparse: bool
    _cycles: tuple | None = None
    kvals: np.ndarray = field(init=False, repr=False, compare=False)
    kbias: np.ndarray = field(init=False, repr=False, compare=False)
    meta: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        sizes = np.diff(self.gptr)
        padded = -(-sizes // PAD) * PAD
        kptr = np.concatenate([[0], np.cumsum(padded)]).astype(np.int64)
        group = np.repeat(np.arange(sizes.size), sizes)       # of each column in gcols
        slot = kptr[group] + np.arange(self.gcols.size) - self.gptr[group]
        kcols = np.full(int(kptr[-1]), -1, np.int64)
        kcols[slot] = self.gcols
        self.kbias = np.zeros(kcols.size if self.bias.size else 0, np.float32)
        if self.bias.size:
            self.kbias[slot] = self.bias[self.gcols]
        width = np.where(self.row_group >= 0, padded[np.maximum(self.row_group, 0)], 0)
        koff = np.concatenate([[0], np.cumsum(width)]).astype(np.int64)
        self.kvals = np.zeros(int(koff[-1]), np.float32)
        ridx = np.repeat(np.arange(self.rows), self.workloads)
        within = np.arange(ridx.size) - np.repeat(self.row_off[:-1], self.workloads)
        self.kvals[koff[ridx] + within] = self.vals
        self.meta = kernels.layout(self.cores, self.row_group, koff, self.gptr, kptr,
                                   self.gcols, kcols)

    @classmethod
    def build(cls, W: np.ndarray, bias: np.ndarray | None, srm: SparseRowMemory | None,
              cores: int, transposed: bool = False) -> "PackedLayer":
        """Compress ``W`` (M x N binary16) through ``srm`` (the forward tuples, or with
        ``transposed`` the transposed ones, whose rows are W's columns); ``srm=None`` keeps
        every weight."""
        W = np.asarray(W)
        A = W.T if transposed else W
        rows, cols = A.shape
        if srm is None:
            row_group = np.zeros(rows, np.int64)
            groups = [np.arange(cols, dtype=np.int64)]
        else:
            if srm.rows != rows or srm.width != cols:
                raise SimError(f"the sparse row memory encodes {srm.rows} x {srm.width}, not "
                               f"the {rows} x {cols} matrix it compresses")
            # each group's columns from the first row holding one of its tuples, in row order
            slots = np.asarray(srm.index_list, np.int64)
            uniq, first = np.unique(slots, return_index=True)
            by_group: dict[int, np.ndarray] = {}
            slot_group = np.empty(uniq.size, np.int64)
            for k in np.argsort(first, kind="stable"):
                t = srm.tuples[int(uniq[k])]
                by_group.setdefault(t.max_index, np.asarray(t.nz, np.int64))
                slot_group[k] = t.max_index
            order = sorted(by_group)
            remap = {g: k for k, g in enumerate(order)}
            groups = [by_group[g] for g in order]
            slot_group = np.array([remap[int(g)] for g in slot_group], np.int64)
            row_group = slot_group[np.searchsorted(uniq, slots)]
        covered = np.zeros(cols, bool)
        for cols_g in groups:
            covered[cols_g] = True
        rest = np.flatnonzero(~covered)
        sizes = np.array([len(g) for g in groups] + [0], np.int64)   # [-1]: a row of none
        row_group = np.where(sizes[row_group] > 0, row_group, -1)
        gcols = np.concatenate(groups + [rest]).astype(np.int64)
        gptr = np.concatenate([[0], np.cumsum(sizes[:-1]), [len(gcols)]]).astype(np.int64)
        workloads = sizes[row_group]
        row_off = np.concatenate([[0], np.cumsum(workloads)]).astype(np.int64)
        # row r's kept weights, its group's columns in order, row after row
        ridx = np.repeat(np.arange(rows), workloads)
        within = np.arange(ridx.size) - np.repeat(row_off[:-1], workloads)
        col = gcols[gptr[row_group[ridx]] + within]
        flat = col * W.shape[1] + ridx if transposed else ridx * cols + col  # W's words
        vals = np.ascontiguousarray(W).reshape(-1).take(flat).astype(np.float32)
        blocks = row_based(workloads, cores)
        bounds = np.array([0] + [int(b[-1]) + 1 if b.size else 0 for b in blocks], np.int64)
        bounds = np.maximum.accumulate(bounds)
        b = (np.zeros(0, np.float32) if bias is None or transposed
             else np.asarray(bias).astype(np.float32))
        return cls(rows, cols, transposed, row_group, row_off, vals, gptr, gcols, bounds,
                   workloads, b, srm is not None)

    # ---- the cores' work -----------------------------------------------------------------
    def core_workloads(self) -> list[np.ndarray]:
        """The workloads of each core's rows, in order."""
        return [self.workloads[self.cores[c]:self.cores[c + 1]]
                for c in range(self.cores.size - 1)]

    @property
    def nnz(self) -> int:
        """Unmasked weights (multiply-accumulates per vector)."""
        return int(self.workloads.sum())

    def forward(self, X: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``X`` (batch x rows, binary16) times the layer (plus the bias of a forward layer):
        batch x cols, binary16, into ``out`` if given (:func:`.kernels.packed_forward`)."""
        X = np.ascontiguousarray(X, np.float16)
        if X.ndim != 2 or X.shape[1] != self.rows:
            raise SimError(f"a {self.rows} x {self.cols} layer takes vectors of {self.rows}, "
                           f"not {X.shape[-1]}")
        if out is None:
            out = np.empty((X.shape[0], self.cols), np.float16)
        self.forward_bits(X.view(np.uint16), out.view(np.uint16))
        return out

    def forward_bits(self, X: np.ndarray, out: np.ndarray) -> None:
        """:meth:`forward` on binary16 bits: ``X`` (batch x rows) and ``out`` (batch x cols)
        uint16 arrays of the right shapes, unchecked (the instruction models bind them once
        and check the layer's shape when it changes)."""
        kernels.packed_forward(X, self.meta, self.kvals, self.kbias, out)

    def accumulate(self, X: np.ndarray, D: np.ndarray, G: np.ndarray) -> None:
        """Add ``X[b]^T D[b]`` on the kept weights and ``D[b]`` on the bias row to the
        ``(rows+1) x cols`` binary16 accumulator ``G`` in place (a forward layer only)."""
        if self.transposed:
            raise SimError("weight gradients accumulate on the forward layer, not the "
                           "transposed one")
        self.accumulate_bits(np.ascontiguousarray(X, np.float16).view(np.uint16),
                             np.ascontiguousarray(D, np.float16).view(np.uint16),
                             G.view(np.uint16))

    def accumulate_bits(self, X: np.ndarray, D: np.ndarray, G: np.ndarray) -> None:
        """:meth:`accumulate` on binary16 bits (uint16 arrays of the right shapes, unchecked,
        as :meth:`forward_bits`)."""
        kernels.packed_grad(X, D, self.meta, G)

    def core_cycles(self, lanes: int, rows_per_pass: int, stream: bool = False) -> list[int]:
        """Cycles of each core for one vector, counted cycle by cycle by the core controller
        (:func:`.controller.core_cycles`), or :func:`.timing.core_stream_cycles` with
        ``stream``; computed once per grouping."""
        key = (lanes, rows_per_pass, stream)
        if self._cycles is None or self._cycles[0] != key:
            f = timing.core_stream_cycles if stream else controller.core_cycles
            self._cycles = (key, [f(w, lanes, rows_per_pass) for w in self.core_workloads()])
        return self._cycles[1]

    def mask(self) -> np.ndarray:
        """The rows x cols mask the packed layer keeps."""
        m = np.zeros((self.rows, self.cols), bool)
        for r in range(self.rows):
            g = self.row_group[r]
            if g >= 0:
                m[r, self.gcols[self.gptr[g]:self.gptr[g + 1]]] = True
        return m

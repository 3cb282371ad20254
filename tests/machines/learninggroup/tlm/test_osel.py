"""The sparse data encoder with OSEL and the baseline (machines/learninggroup/tlm/osel.py):
tuples against a direct mask computation, Fig. 5's hit/miss sequence, Fig. 10's cycle and
memory breakdowns on hand-computed cases, and the hardware limits."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm import osel
from rlaccel.machines.learninggroup.tlm.timing import EncoderParams


def _grouping(rng, M, G, N):
    return rng.standard_normal((M, G)).astype(np.float16), \
        rng.standard_normal((G, N)).astype(np.float16)


@pytest.mark.parametrize("method", osel.METHODS)
@pytest.mark.parametrize("G", [1, 2, 4, 8, 16])
def test_tuples_encode_is_times_os(method, G):
    """On random grouping matrices the memory encodes IS @ OS: each row's tuple has that
    row's bitvector, its non-zero indexes and their count; OSEL keeps one tuple per group
    that occurs, the baseline one per row."""
    rng = np.random.default_rng(G)
    IG, OG = _grouping(rng, 128, G, 512)
    IS = np.eye(G)[np.argmax(IG, axis=1)]
    OS = np.eye(G)[np.argmax(OG, axis=0)].T
    mask = (IS @ OS).astype(bool)
    enc = osel.sparse_generation(IG, OG, method)
    srm = enc.srm
    assert np.array_equal(srm.mask(), mask)
    for i in range(128):
        t = srm.row(i)
        assert np.array_equal(t.nz, np.flatnonzero(mask[i])) and t.workload == mask[i].sum()
        assert t.max_index == np.argmax(IG[i])
    assert np.array_equal(srm.workloads(), mask.sum(axis=1))
    groups_used = len(set(np.argmax(IG, axis=1).tolist()))
    assert len(srm.tuples) == (groups_used if method == "osel" else 128)
    assert enc.cycles.misses + enc.cycles.hits == 128


@pytest.mark.parametrize("method", osel.METHODS)
def test_the_transposed_memory_encodes_the_transposed_mask(method):
    """transposed=True encodes W^T: N rows keyed by OG's column groups, M-bit bitvectors."""
    rng = np.random.default_rng(7)
    IG, OG = _grouping(rng, 128, 4, 512)
    fwd = osel.sparse_generation(IG, OG, method).srm
    bwd = osel.sparse_generation(IG, OG, method, transposed=True).srm
    assert bwd.rows == 512 and bwd.width == 128
    assert np.array_equal(bwd.mask(), fwd.mask().T)


def test_fig5_sequence_miss_miss_hit_miss_miss_hit():
    """Fig. 5 (G = 4): IG max indexes 1, 2, 1, 3, 0, 2 miss, miss, hit, miss, miss, hit with
    OSEL and always miss in the baseline. With 6 columns a tuple is 525 + 9 WL bits, two
    512-bit writes, so a miss costs 1 + 2 cycles and a hit 1."""
    rows = [1, 2, 1, 3, 0, 2]
    cols = [1, 1, 0, 2, 3, 3]
    enc = osel.encode_osel(rows, cols, 4)
    assert [k for _, _, k, _, _ in enc.trace] == ["miss", "miss", "hit", "miss", "miss", "hit"]
    assert [(c0, n) for *_, c0, n in enc.trace] == [(0, 3), (3, 3), (6, 1), (7, 3), (10, 3),
                                                   (13, 1)]
    assert enc.srm.index_list.tolist() == rows
    assert enc.srm.tuples[1].bitvector.tolist() == [True, True, False, False, False, False]
    base = osel.encode_baseline(rows, cols, 4)
    assert [k for _, _, k, _, _ in base.trace] == ["miss"] * 6
    assert base.cycles.index_miss == 18 and enc.cycles.index_miss + enc.cycles.index_hit == 14


def _small():
    """M = 4, N = 8, G = 2: row groups 0 1 0 0, column groups 0 0 1 1 1 0 0 0."""
    IG = np.array([[1, 0], [0, 1], [1, 0], [1, 0]], np.float16)
    OG = np.array([[1, 1, 0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 0, 0, 0]], np.float16)
    return IG, OG


def test_fig10a_breakdown_by_hand():
    """MaxIndex ceil(4*2/32) + ceil(2*8/32) = 2; misses cost 1 + ceil((525 + 9 WL)/512) = 3
    (WL 5 and 3), hits 1; Weight Compression one 32-word read per row = 4. OSEL: 2 + 6 + 2
    + 4 = 14; baseline: 2 + 4 * 3 + 4 = 18."""
    IG, OG = _small()
    o = osel.sparse_generation(IG, OG, "osel").cycles.as_dict()
    b = osel.sparse_generation(IG, OG, "baseline").cycles.as_dict()
    assert o == {"max_index": 2, "index_miss": 6, "index_hit": 2, "weight_compression": 4,
                 "total": 14, "misses": 2, "hits": 2}
    assert b == {"max_index": 2, "index_miss": 12, "index_hit": 0, "weight_compression": 4,
                 "total": 18, "misses": 4, "hits": 0}


def test_fig10b_footprint_by_hand():
    """Bits: weights 18 kept x 16; grouping (4 + 8) x 2 x 16; tuples 525 each (512-bit
    bitvector, 9-bit workload, 4-bit max index); non-zero indexes 9 bits each; index list
    4 x 4 bits (OSEL only)."""
    IG, OG = _small()
    fo = osel.footprint(osel.sparse_generation(IG, OG, "osel"), 2)
    fb = osel.footprint(osel.sparse_generation(IG, OG, "baseline"), 2)
    assert fo == {"weights": 288, "grouping": 384, "srm_tuples": 1050, "srm_nz_indexes": 72,
                  "index_list": 16, "total": 1810, "dense": 512}
    assert fb == {"weights": 288, "grouping": 384, "srm_tuples": 2100, "srm_nz_indexes": 162,
                  "index_list": 0, "total": 2934, "dense": 512}
    compact = osel.footprint(osel.sparse_generation(IG, OG, "osel"), 2,
                             EncoderParams(store_nz_indexes=False))
    assert compact["srm_nz_indexes"] == 0 and compact["total"] == 1738


def test_hardware_limits_are_clear_errors():
    """More groups than the hardware's 16, a layer wider than the 512-bit bitvector, an
    unknown encoder, mismatched grouping matrices."""
    rng = np.random.default_rng(0)
    IG, OG = _grouping(rng, 128, 32, 512)
    with pytest.raises(SimError, match=r"G = 32 groups is beyond the hardware's 1..16"):
        osel.sparse_generation(IG, OG)
    osel.sparse_generation(IG, OG, p=EncoderParams(max_groups=32))     # a 5-bit max index
    IG, OG = _grouping(rng, 128, 4, 513)
    with pytest.raises(SimError, match=r"a layer with 513 columns is wider than the 512-bit "
                                       r"bitvector of the sparse row memory"):
        osel.sparse_generation(IG, OG)
    with pytest.raises(SimError, match=r"unknown sparse encoder 'csr'"):
        osel.sparse_generation(IG, OG, "csr")
    with pytest.raises(SimError, match=r"IG \(128, 4\) and OG \(3, 512\) do not agree"):
        osel.sparse_generation(IG, OG[:3, :512])
    with pytest.raises(SimError, match=r"a row max index is outside 0..1"):
        osel.encode_osel([0, 2], [0, 1], 2)


def test_the_mask_baseline_writes_compact_tuples_and_scans_every_row():
    """Every row a miss of 1 + ceil((512 + 9 + 4) / 512) = 3 cycles whatever its workload,
    and Weight Compression of 512 / 32 = 16 cycles a row whatever G."""
    rng = np.random.default_rng(8)
    for G in (2, 16):
        enc = osel.mask_baseline(rng.integers(0, G, 128), rng.integers(0, G, 512), G,
                                 max_index=7)
        c = enc.cycles
        assert (c.max_index, c.index_miss, c.index_hit, c.weight_compression) == \
            (7, 128 * 3, 0, 128 * 16)
        assert c.misses == 128 and len(enc.srm.tuples) == 128

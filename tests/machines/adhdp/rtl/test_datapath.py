"""The datapath (machines/adhdp/rtl/datapath.py) executes FF, BP, WU and BP_WU exactly as tlm.families.base.semantics does
-- memories and saturation counts bit for bit -- in the cycles tlm.families.base.timing gives (issue +
depth from start to done; one STALL cycle more for a BP whose window fits one tile), on
MyHDL and as Verilog in Icarus; its Verilog is Verilator-clean."""

from math import ceil

import numpy as np
import pytest

from rlaccel.isa.encoding import Instruction
from rlaccel.machines.adhdp.rtl.benches import datapath_txn
from rlaccel.rtl.cosim import run
from rlaccel.machines.adhdp.rtl.datapath import DATAPATH_MNEMONICS, rtl_cycles
from rlaccel.rtl.hdl import lint
from rlaccel.machines.adhdp.rtl.params import params
from rlaccel.tlm.families.base.timing import matrix_timing

from tests.rtl.conftest import assert_clean

EDGES = ("zero", "most negative", "most positive")


def test_random_instructions_myhdl():
    """150 random instructions: every mnemonic, activated and bypassed, reading zero, the
    most negative and the most positive word, saturating; and a few non-datapath words."""
    r = run("datapath", n=150, seed=41)
    assert_clean(r)
    cov = r.extra["coverage"]
    for key in ("ff/act", "ff/bypass", "bp/act", "bp/bypass", "wu", "bp_wu/act",
                "bp_wu/bypass", "fault"):
        assert cov.get(key, 0) > 0, key
    for mn in DATAPATH_MNEMONICS:
        assert cov.get(f"{mn} saturates", 0) > 0, mn
        for edge in EDGES:
            assert cov.get(f"{mn} reads {edge}", 0) > 0, (mn, edge)


def _directed(prm):
    """Extreme shapes and values: 1x1, one full tile, ragged tiles, the largest matrix the
    synapse memory holds, an offset window; memories all zero, all most negative, all most
    positive, and mixed."""
    rng = np.random.default_rng(5)
    L = prm.lanes
    shapes = [(1, 1, 0), (1, L, 0), (2, L + 1, 0), (3, 2 * L + 3, L + 1),
              (prm.max_dim, prm.synapse_words // prm.max_dim, 0), (L, prm.max_dim, 0),
              (prm.synapse_words // prm.max_dim, prm.max_dim, prm.max_dim - 1)]
    fills = (0, prm.min_raw, prm.max_raw, None)
    for mn in DATAPATH_MNEMONICS:
        for k, (rows, cols, off) in enumerate(shapes):
            for fill in fills:
                acts = (0, 1, 2, 3, 4) if k < 3 else (0, 2)   # every activation on small ones
                for act in (acts if mn != "wu" else (None,)):
                    if fill is None:
                        U = rng.integers(prm.min_raw, prm.max_raw + 1, prm.unified_words)
                        S = rng.integers(prm.min_raw, prm.max_raw + 1, prm.synapse_words)
                    else:
                        U = np.full(prm.unified_words, fill, dtype=np.int64)
                        S = np.full(prm.synapse_words, fill, dtype=np.int64)
                    ops = {"src": 0, "syn": 0, "dst": prm.max_dim, "rows": rows, "cols": cols,
                           "off": off}
                    if act is not None:
                        ops["act"] = act
                    yield datapath_txn(prm, Instruction(mn, ops), U.astype(np.int64),
                                       S.astype(np.int64))


def test_directed_edges_myhdl():
    txns = list(_directed(params("adhdp")))
    r = run("datapath", transactions=txns)
    assert_clean(r)
    assert r.transactions == len(txns)


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("datapath", n=40, seed=42, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "datapath.v", "datapath") == []


@pytest.mark.parametrize("mn", DATAPATH_MNEMONICS)
def test_cycles_are_tlm_timing(mn):
    """The scoreboards expect start to done = issue + depth of tlm.families.base.timing, whose BP one tile
    wide carries the STALL slot this RTL inserts (the benches check the RTL's real counts)."""
    L = params("adhdp").lanes
    for rows in (1, 2, 7):
        for n in (1, L, L + 1, 3 * L):
            for act in (0, 1):
                issue, depth = matrix_timing(mn, rows, n, L, act)
                assert rtl_cycles(mn, rows, n, L, act) == issue + depth
                if mn == "bp":
                    assert issue == rows * ceil(n / L) + ceil(n / L) + (ceil(n / L) == 1)
"""Cycle counts of the base family, written once, with the seed section each comes from.

Seed 001 (Zheng & Mazumder), section III:

* III-A: matrices are processed in tiles of ``L`` weights (one synapse-SRAM row per tile, one
  tile per cycle through the ``L`` lanes). FF is row-wise: each output row takes
  ``ceil(n/L)`` tiles; the input vector is first loaded from neuron memory into the circular
  activation buffer (``ceil(n/L)`` cycles, L words per cycle). BP is column-wise over the same
  tiles. WU reads a row and writes it back; "the error backpropagation and weight update
  operations are scheduled in alternate clock cycles in order to reuse the same row of
  synaptic weights", so BP_WU costs two cycles per tile and reads each weight once.
* III-B: a six-stage pipeline (schedule, fetch, multiply, add, activate, write back); the
  activate stage is bypassed when the instruction needs no activation (five stages). The
  add stage is configured per instruction: as an adder tree for FF (the L products of a
  tile reduce into one row sum) and as parallel adders for BP and WU (L column accumulators
  or L weight updates); either way it takes one tile per cycle, so the configuration does
  not change the counts below.
  Consecutive instructions overlap in the pipeline; a consumer of a result waits for it
  (the scheduler forwards from the write-back buffer, saving the write-back stage).
* IV-B: VU computes Lambda once per input vector (``N_i`` multiplies on L lanes) and o0 with
  the forward pass; each virtual step reads o0 and E (``N_h`` words) and does ``N_h`` MACs.

Every function returns ``(issue, depth)``: cycles the instruction occupies the issue stage
(the datapath), and the pipeline depth its last result needs to reach write-back.
"""

from __future__ import annotations

from math import ceil

__all__ = ["PIPELINE", "BRANCH_PENALTY", "SCALAR_LATENCY", "matrix_timing", "tiles",
           "control_timing"]

#: the six stages of seed 001, III-B
PIPELINE = ("schedule", "fetch", "multiply", "add", "activate", "write back")
#: cycles lost when a branch is taken (the schedule stage refetches)
BRANCH_PENALTY = 2
#: scalar unit: fetch, operate, write back
SCALAR_LATENCY = 3


def tiles(rows: int, n: int, lanes: int) -> int:
    """Tiles of a rows x n matrix on L lanes: one SRAM row each (III-A)."""
    return rows * ceil(n / lanes)


def _depth(act: int) -> int:
    return len(PIPELINE) if act else len(PIPELINE) - 1


def matrix_timing(mnemonic: str, rows: int, n: int, lanes: int, act: int) -> tuple[int, int]:
    """(issue cycles, pipeline depth) of a datapath instruction on a rows x n window."""
    t = tiles(rows, n, lanes)
    vec_in, vec_out = ceil(n / lanes), ceil(rows / lanes)
    if mnemonic == "ff":
        return vec_in + t, _depth(act)                  # buffer load, then row-wise tiles
    if mnemonic == "bp":                                # column-wise tiles, then act' * e;
        stall = 1 if vec_in == 1 else 0                 # one column: its sum leaves the add
        return t + vec_in + stall, _depth(0)            # stage a cycle late (a STALL slot)
    if mnemonic == "wu":
        return 2 * t, _depth(0)                         # read and write every tile
    if mnemonic == "bp_wu":
        return 2 * t + vec_in, _depth(0)                # BP and WU on alternate cycles
    if mnemonic == "vu.init":                           # load, FF tiles, Lambda, store o0/E
        return vec_in + t + vec_in + ceil((2 * rows + 1) / lanes), _depth(act)
    if mnemonic == "vu.step":
        return 2 * vec_out, _depth(act)                 # read o0 and E tiles, one MAC each
    if mnemonic == "wu.vu":
        return 2 * vec_out, _depth(0)                   # read-modify-write of E
    if mnemonic == "vu.commit":
        return 2 * t, _depth(0)                         # the real update, as WU
    raise KeyError(mnemonic)


def control_timing(mnemonic: str) -> int:
    """Issue cycles of a controller instruction (not counting a taken branch's penalty)."""
    if mnemonic == "cc.bsqlt":
        return 2                                        # square, then compare
    return 1

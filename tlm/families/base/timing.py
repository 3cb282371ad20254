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
  "The operation of accumulating E is merged to the normal BP or BP_WU operations without
  introducing any overhead in computational time": ``bp.vu``/``bp_wu.vu`` take the cycles of
  ``bp``/``bp_wu`` (E's words are read in the act' tail, when the SRAM is idle, and written
  back with the result).

* Synapse SRAM ports (``[datapath] synapse_ports``, default 1): the seed does not give them.
  With one port a tile read and a tile written take separate cycles, so WU (and the VU
  commit, a WU) take two cycles per tile; with a read and a write port (2) the fetch stage
  reads the next tile while the write-back stage writes an earlier one, one tile per cycle,
  as the four lanes allow. BP_WU takes two cycles per tile either way (BP and WU share the
  lanes on alternate cycles), as does every other instruction's count.

Every function returns ``(issue, depth)``: cycles the instruction occupies the issue stage
(the datapath), and the pipeline depth its last result needs to reach write-back.

The constants (pipeline depth, branch penalty, scalar latency) are the architecture's
``[timing]`` table (:data:`TIMING_KEYS`); the defaults of the functions below are the seed's
chip, which the RTL datapath implements.
"""

from __future__ import annotations

from math import ceil

from rlaccel.tlm.fast.hazards import WHOLE
from rlaccel.tlm.families.base.semantics import vu_words

__all__ = ["PIPELINE", "TIMING_KEYS", "FORWARDING", "SYNAPSE_PORTS", "matrix_timing",
           "matrix_schedule", "tiles", "control_timing"]

#: the six stages of seed 001, III-B
PIPELINE = ("schedule", "fetch", "multiply", "add", "activate", "write back")

#: the ``[timing]`` constants of the base family
TIMING_KEYS = {
    "pipeline_depth": "datapath pipeline stages, the activate stage included (seed 001, "
                      "III-B: schedule, fetch, multiply, add, activate, write back)",
    "branch_penalty": "cycles lost when a branch is taken (the schedule stage refetches)",
    "scalar_latency": "scalar unit stages: fetch, operate, write back",
}


#: ``[datapath] synapse_ports`` of an architecture: 1 (single port, the default) or 2 (one read
#: and one write port): the cycles a WU tile takes (see the module doc)
SYNAPSE_PORTS = (1, 2)


def _wu_step(synapse_ports: int) -> int:
    """Cycles per tile of a weight update (a read and a write of the tile's SRAM row)."""
    if synapse_ports not in SYNAPSE_PORTS:
        raise ValueError(f"synapse_ports must be one of {SYNAPSE_PORTS}, not {synapse_ports!r}")
    return 2 if synapse_ports == 1 else 1


def tiles(rows: int, n: int, lanes: int) -> int:
    """Tiles of a rows x n matrix on L lanes: one SRAM row each (III-A)."""
    return rows * ceil(n / lanes)


def matrix_timing(mnemonic: str, rows: int, n: int, lanes: int, act: int,
                  pipeline_depth: int = len(PIPELINE),
                  synapse_ports: int = 1) -> tuple[int, int]:
    """(issue cycles, pipeline depth) of a datapath instruction on a rows x n window; an
    instruction without activation bypasses the activate stage."""
    wu_step = _wu_step(synapse_ports)

    def _depth(a: int) -> int:
        return pipeline_depth if a else pipeline_depth - 1

    if mnemonic == "ff.mov":                            # L words a cycle through the
        return ceil(n / lanes), _depth(0)               # pipeline, activate bypassed
    t = tiles(rows, n, lanes)
    vec_in, vec_out = ceil(n / lanes), ceil(rows / lanes)
    if mnemonic in ("bp.vu", "bp_wu.vu"):               # IV-B: E accumulated "without
        mnemonic = mnemonic[:-3]                        # introducing any overhead in time"
    if mnemonic == "ff":
        return vec_in + t, _depth(act)                  # buffer load, then row-wise tiles
    if mnemonic == "bp":                                # column-wise tiles, then act' * e;
        stall = 1 if vec_in == 1 else 0                 # one column: its sum leaves the add
        return t + vec_in + stall, _depth(0)            # stage a cycle late (a STALL slot)
    if mnemonic == "wu":
        return wu_step * t, _depth(0)                   # read and write every tile
    if mnemonic == "bp_wu":
        return 2 * t + vec_in, _depth(0)                # BP and WU on alternate cycles
    if mnemonic == "vu.init":                           # load, FF tiles, Lambda, store o0/E
        return vec_in + t + vec_in + ceil(vu_words(rows) / lanes), _depth(act)
    if mnemonic == "vu.step":
        return 2 * vec_out, _depth(act)                 # read o0 and E tiles, one MAC each
    if mnemonic == "vu.commit":
        return wu_step * t, _depth(0)                   # the real update, as WU
    raise KeyError(mnemonic)


#: ``[datapath] forwarding`` of an architecture: what the scheduler checks before it starts an
#: instruction (III-B-1). "element": every word when the tile that uses it issues, each result
#: word when its own tile leaves the pipeline (forwarded from the write-back buffer);
#: "instruction": a consumer waits for the producer's last result (the rule before issue 13)
FORWARDING = ("element", "instruction")
_W = WHOLE            # one row / one time for a whole row


def _vec(t0: int, per: int = _W, step: int = 0) -> tuple:
    return (t0, _W, 0, 0, per, step)


def matrix_schedule(mnemonic: str, o, lanes: int, pipeline_depth: int = len(PIPELINE),
                    synapse_ports: int = 1) -> dict:
    """When each word of a datapath instruction's ranges is used (reads) or can be forwarded
    (writes), in cycles from its start, as :mod:`rlaccel.tlm.fast.hazards` schedules; the
    ranges left out keep the per-instruction rule. A tile issued at cycle c uses its operands
    at c and its result is ready at c + depth - 1 (the last one: issue + depth - 2, as
    :func:`matrix_timing` has it). The orders are III-A's: FF row by row after the buffer
    load; BP column block by column block over the rows, then act' block by block; BP_WU the
    same with a WU cycle after each BP cycle; WU row by row, a read and a write per tile."""
    L = lanes
    w = _wu_step(synapse_ports)
    rows, cols, off = o.get("rows", 1), o["cols"], o.get("off", 0)
    n = cols - off
    cn = ceil(n / L)
    act = o.get("act", 0)
    d = pipeline_depth if act and mnemonic in ("ff", "vu.init", "vu.step") else pipeline_depth - 1
    if mnemonic == "ff.mov":
        return {("src", "r"): _vec(0, L, 1), ("dst", "w"): _vec(d - 1, L, 1)}
    if mnemonic == "ff":
        return {("src", "r"): _vec(0, L, 1),
                ("syn", "r"): (cn, cols, cn, off, L, 1),
                ("dst", "w"): _vec(2 * cn + d - 2, 1, cn)}
    if mnemonic in ("bp", "bp.vu"):
        stall = 1 if cn == 1 else 0
        out = {("src", "r"): _vec(0, 1, 1),
               ("dst", "r"): _vec(rows * cn + stall, L, 1),
               ("dst", "w"): _vec(rows * cn + stall + d - 1, L, 1)}
        if mnemonic == "bp":
            out[("syn", "r")] = (0, cols, 1, off, L, rows)
        return out
    if mnemonic in ("bp_wu", "bp_wu.vu"):
        out = {("src", "r"): _vec(0, 1, 2),
               ("dst", "r"): _vec(1, L, 2 * rows),
               ("dst", "w"): _vec(2 * rows * cn + d - 1, L, 1)}
        if mnemonic == "bp_wu":
            out[("syn", "r")] = (0, cols, 2, off, L, 2 * rows)
            out[("syn", "w")] = (d, cols, 2, off, L, 2 * rows)
        return out
    if mnemonic == "wu":
        return {("src", "r"): _vec(0, 1, w * cn), ("dst", "r"): _vec(0, L, w),
                ("syn", "r"): (0, cols, w * cn, off, L, w),
                ("syn", "w"): (d, cols, w * cn, off, L, w)}
    if mnemonic == "vu.init":
        return {("src", "r"): _vec(0, L, 1), ("dst", "w"): _vec(2 * cn + d - 2, 1, cn)}
    if mnemonic == "vu.step":
        return {("dst", "w"): _vec(d, L, 2)}
    if mnemonic == "vu.commit":
        cc = ceil(cols / L)
        return {("src", "r"): _vec(0, L, w), ("syn", "w"): (d, cols, w * cc, 0, L, w)}
    raise KeyError(mnemonic)


def control_timing(mnemonic: str) -> int:
    """Issue cycles of a controller instruction (not counting a taken branch's penalty)."""
    if mnemonic == "cc.bsqlt":
        return 2                                        # square, then compare
    return 1

"""Cycle formulas of FIXAR's units, written once, with the paper's section each comes from.

The FIXAR paper, section V (AAP cores) and III (the platform):

* **Tiles.** An AAP core is a 16x16 PE array. Column-wise matrix decomposition (V-B, Fig. 4):
  a layer ``W`` of ``P`` outputs by ``Q`` inputs is cut into tiles of 16 inputs (PE rows, each
  broadcast one input element) by 16 outputs (PE columns, accumulated vertically). The weight
  memory stores ``W`` row by row over 16 BRAM modules of 512 bits (16 weights each): one read
  of the 16 modules is one tile, handed to PE columns for inference and to PE rows for
  training (the transpose "problem" solved by mapping). So a core does **one tile, 256 MACs,
  per cycle**, whichever the direction.
* **Forward (intra-layer parallelism).** Tiles' input blocks are interleaved across the ``N``
  cores (core ``k`` takes blocks ``k, k+N, ...``); the cores' partial sums are added in the
  accumulator. Per vector: ``ceil(P/16) * ceil(ceil(Q/16) / N)`` cycles.
* **Back-propagation and weight gradients (intra-batch parallelism).** Each core takes whole
  vectors of the batch with the transposed mapping of the same weights: ``ceil(V / N)``
  vectors per core, ``ceil(Q/16) * ceil(P/16)`` cycles each. A weight gradient
  ``G += e x^T`` is one tile-sized outer product a cycle, kept in the PEs' accumulators over
  the core's vectors; the cores' partial tiles are added when written to gradient memory
  (assumed overlapped: one write per tile per batch).
* **Half precision (V-C, Fig. 5).** After the quantization delay a PE multiplies one weight
  by two 16-bit activations a cycle. In forward propagation the two activations are the same
  input of two vectors (pairs of a batch: ``ceil(V/2)`` vector slots; a single vector gains
  nothing); in a weight gradient they are two inputs of one vector (a tile covers 32 inputs).
  Back-propagation broadcasts the error, a 32-bit gradient ("weights and gradients are kept in
  32-bit fixed-point format"), so it stays at one MAC a cycle unless ``bp_half``.
* **Biases** cost no PE cycle: the accumulator starts from the bias (forward) and sums the
  errors into the bias gradient (backward).
* **Adam unit and soft update** (III): local to the weight memory, ``lanes`` words a cycle
  (a 512-bit line is 16 words); the paper gives neither their width nor their pipeline.
* **Pipeline**: every dependent matrix instruction adds ``pipeline_depth`` cycles of fill
  (weight read, two multiplier stages, a 4-level column adder tree, accumulate, activate,
  write back, SLR-crossing registers: about 10; the paper gives no figure).

:func:`ddpg_step` lays out one training time step in the order of Fig. 3 and returns every
phase's cycles and MACs; :func:`accelerator_ips` turns it into the paper's IPS (batch samples
per second of accelerator time, section VI-C).

:class:`AapTiming`'s defaults are read from the machine's architecture file,
``machines/fixar/archs/fixar.toml`` (:data:`ARCH`), the one place they are stated; a run reads
its own architecture (``models.aap_timing``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil
from pathlib import Path

from rlaccel.isa.arch import load_arch

__all__ = ["AapTiming", "tiles", "ff_cycles", "bp_cycles", "wg_cycles", "unit_cycles",
           "Phase", "StepTiming", "ddpg_step", "accelerator_ips", "ARCH"]

#: the machine's architecture, where :class:`AapTiming`'s defaults come from
ARCH = load_arch(Path(__file__).resolve().parents[1] / "archs" / "fixar.toml")
_TIMING = ARCH.extra["timing"]


@dataclass(frozen=True)
class AapTiming:
    """The knobs of the timing model (the FIXAR paper where it gives them; the defaults are
    :data:`ARCH`'s)."""

    cores: int = ARCH.knobs.cores                   # N AAP cores (VI-A: 2, across the 2 SLRs)
    pe_rows: int = _TIMING["pe_rows"]               # inputs per tile (16x16 PEs, III)
    pe_cols: int = _TIMING["pe_cols"]               # outputs per tile
    clock_mhz: float = ARCH.knobs.clock_mhz         # VI-A
    pipeline_depth: int = _TIMING["pipeline_depth"]  # assumption (module docstring)
    adam_lanes: int = _TIMING["adam_lanes"]         # assumption: a 512-bit gradient line
    adam_depth: int = _TIMING["adam_depth"]         # assumption: float32 mul, sqrt, divide
    soft_lanes: int = _TIMING["soft_lanes"]         # assumption: a 512-bit weight line
    prng_lanes: int = _TIMING["prng_lanes"]         # our PRNG (prng.py): a Gaussian per lane
    vector_lanes: int = _TIMING["vector_lanes"]     # accumulator/activation unit width
    bp_half: bool = False           # BP's error operand 16-bit after the delay (not the paper's)

    @property
    def peak_macs(self) -> int:
        """Full-precision MACs per cycle of all cores."""
        return self.cores * self.pe_rows * self.pe_cols


def tiles(P: int, Q: int, cfg: AapTiming = AapTiming()) -> int:
    """Tiles of a ``P x Q`` weight matrix (P outputs, Q inputs)."""
    return ceil(P / cfg.pe_cols) * ceil(Q / cfg.pe_rows)


def ff_cycles(P: int, Q: int, vectors: int, cfg: AapTiming = AapTiming(),
              half: bool = False) -> int:
    """Busy cycles of a forward layer over ``vectors`` inputs (intra-layer parallelism)."""
    slots = ceil(vectors / 2) if half else vectors
    return slots * ceil(P / cfg.pe_cols) * ceil(ceil(Q / cfg.pe_rows) / cfg.cores)


def bp_cycles(P: int, Q: int, vectors: int, cfg: AapTiming = AapTiming(),
              half: bool = False) -> int:
    """Busy cycles of ``e_in = W^T e`` for a ``P x Q`` layer over ``vectors`` errors
    (intra-batch parallelism; Q outputs)."""
    slots = ceil(vectors / 2) if half and cfg.bp_half else vectors
    return ceil(slots / cfg.cores) * ceil(Q / cfg.pe_cols) * ceil(P / cfg.pe_rows)


def wg_cycles(P: int, Q: int, vectors: int, cfg: AapTiming = AapTiming(),
              half: bool = False) -> int:
    """Busy cycles of the weight gradient ``G = sum_b e_b x_b^T`` of a ``P x Q`` layer."""
    width = cfg.pe_rows * (2 if half else 1)
    return ceil(vectors / cfg.cores) * ceil(P / cfg.pe_cols) * ceil(Q / width)


def unit_cycles(words: int, lanes: int, depth: int = 0) -> int:
    """A streaming unit (Adam, soft update, PRNG, vector ops): ``ceil(words/lanes) + depth``."""
    return ceil(words / lanes) + (depth if words else 0)


@dataclass(frozen=True)
class Phase:
    """One step of the schedule: what, on which unit, its busy cycles, its useful MACs and
    the fill latency it adds to the critical path."""

    name: str
    unit: str
    cycles: int
    macs: int = 0
    fill: int = 0
    overlapped: bool = False     # runs beside the critical path (not in ``cycles_per_step``)


@dataclass
class StepTiming:
    """Every phase of one DDPG time step (training on a batch, then the action)."""

    batch: int
    half: bool
    cfg: AapTiming
    phases: list[Phase] = field(default_factory=list)

    @property
    def cycles(self) -> int:
        """Critical-path cycles of the step: every phase not overlapped, with its fill."""
        return sum(p.cycles + p.fill for p in self.phases if not p.overlapped)

    @property
    def array_cycles(self) -> int:
        """Cycles the AAP cores are busy (matrix phases, fill excluded)."""
        return sum(p.cycles for p in self.phases if p.unit == "aap")

    @property
    def macs(self) -> int:
        return sum(p.macs for p in self.phases)

    def by_unit(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.phases:
            out[p.unit] = out.get(p.unit, 0) + p.cycles
        return out

    def utilization(self) -> float:
        """Useful MACs over the cores' capacity during the step's critical path, at the
        step's precision (two MACs per PE a cycle in half precision)."""
        cap = self.cfg.peak_macs * (2 if self.half else 1) * self.cycles
        return self.macs / cap if cap else 0.0

    def array_utilization(self) -> float:
        """Useful MACs over the cores' capacity while they are busy (tile padding and
        single-vector phases only)."""
        cap = self.cfg.peak_macs * (2 if self.half else 1) * self.array_cycles
        return self.macs / cap if cap else 0.0


def _mlp(sizes):
    """``(P, Q)`` of each layer of widths ``sizes = (in, h1, ..., out)``."""
    return [(q, p) for p, q in zip(sizes[:-1], sizes[1:])]


def ddpg_step(state_dim: int, action_dim: int, batch: int, cfg: AapTiming = AapTiming(),
              half: bool = False, hidden=(400, 300), overlap_soft: bool = True) -> StepTiming:
    """One DDPG time step of Fig. 3: critic update, actor update, then the action.

    Critic (S+A)-h1-h2-1, actor S-h1-h2-A (VI-B). The critic's input layer back-propagates
    only the action's columns (the actor needs dQ/da, not dQ/ds). Adam follows each network's
    gradients; the soft updates of both targets run on the Adam unit while the action is
    computed and the host steps the environment (``overlap_soft``), since only the next step
    reads the targets.
    """
    S, A, B = state_dim, action_dim, batch
    actor = _mlp((S, *hidden, A))
    critic = _mlp((S + A, *hidden, 1))
    n_actor = sum(p * q + p for p, q in actor)
    n_critic = sum(p * q + p for p, q in critic)
    st = StepTiming(batch=B, half=half, cfg=cfg)
    d = cfg.pipeline_depth
    add = st.phases.append

    def forward(tag, layers, vectors):
        for i, (p, q) in enumerate(layers):
            add(Phase(f"{tag} FF L{i + 1}", "aap", ff_cycles(p, q, vectors, cfg, half),
                      vectors * p * q, d))

    def backward(tag, layers, vectors, input_cols=None):
        """BP from the output down to the first layer's inputs (``input_cols`` of them: the
        action's columns for the critic in the actor update; None: no input gradient)."""
        for i in range(len(layers) - 1, -1, -1):
            p, q = layers[i]
            if i == 0:
                if input_cols is None:
                    continue
                q = input_cols
            add(Phase(f"{tag} BP L{i + 1}", "aap", bp_cycles(p, q, vectors, cfg, half),
                      vectors * p * q, d))

    def gradients(tag, layers, vectors):
        for i in range(len(layers) - 1, -1, -1):
            p, q = layers[i]
            add(Phase(f"{tag} WG L{i + 1}", "aap", wg_cycles(p, q, vectors, cfg, half),
                      vectors * p * q, d))

    # critic update: y = r + gamma (1 - done) Q'(s', mu'(s')), loss (Q(s, a) - y)^2
    forward("target actor", actor, B)
    forward("target critic", critic, B)
    forward("critic", critic, B)
    add(Phase("TD error", "vector", unit_cycles(3 * B, cfg.vector_lanes), 0, d))
    backward("critic", critic, B)
    gradients("critic", critic, B)
    add(Phase("critic Adam", "adam", unit_cycles(n_critic, cfg.adam_lanes, cfg.adam_depth)))
    # actor update: maximise Q(s, mu(s)) through the updated critic
    forward("actor", actor, B)
    forward("critic(s, mu(s))", critic, B)
    backward("critic dQ/da", critic, B, input_cols=A)
    backward("actor", actor, B)
    gradients("actor", actor, B)
    add(Phase("actor Adam", "adam", unit_cycles(n_actor, cfg.adam_lanes, cfg.adam_depth)))
    # the action for the current state: one vector, then the PRNG's noise
    forward("action", actor, 1)
    add(Phase("noise", "prng", unit_cycles(A, cfg.prng_lanes), 0, 1))
    add(Phase("soft update", "adam", unit_cycles(n_actor + n_critic, cfg.soft_lanes),
              overlapped=overlap_soft))
    return st


def accelerator_ips(step: StepTiming) -> float:
    """The FIXAR paper's accelerator IPS: batch samples per second of accelerator time (VI-C: "the
    IPS performance of the FIXAR's accelerator remains high at 53826.8 IPS for all different
    batch sizes", with accelerator time "linear to the size of input batch")."""
    return step.batch * step.cfg.clock_mhz * 1e6 / step.cycles

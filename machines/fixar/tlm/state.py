"""What a FIXAR agent keeps between instructions: the QAT monitors and quantisers
(Algorithm 1), the PRNG streams, the activation storage format, and the weight operands
prepared for the AAP cores (invalidated when the weight memory is written).

One :class:`FixarState` per agent, in ``agent.state["fixar"]``, made on first use with the
architecture's ``[fixar]`` table checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.arch import arch_table
from rlaccel.util.errors import ArchError, SimError

from rlaccel.machines.fixar.tlm.kernels import Operand, operand_into
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
from rlaccel.machines.fixar.tlm.qat import RangeMonitor, operand, qat_params, quantize_raw

__all__ = ["FixarState", "state_of", "FIXAR_KEYS", "STORES"]

#: the ``[fixar]`` keys and their defaults
FIXAR_KEYS = {"store": "fixed32"}
#: activation storage formats before the quantization delay (machines/fixar/README.md section 4)
STORES = ("fixed32", "fixed16")


def _config(arch) -> dict:
    origin = arch.origin
    out = {**FIXAR_KEYS, **arch_table(arch, "fixar", FIXAR_KEYS)}
    if out["store"] not in STORES:
        raise ArchError(f"{origin}: [fixar] store = {out['store']!r}; must be one of "
                        f"{', '.join(STORES)}")
    return out


@dataclass
class FixarState:
    """The per-agent state of the ddpg family (module docstring)."""

    acc: object                                   # fixed32 (q16.16): the machine's word
    store: object                                 # activation storage before the delay
    segments: int
    prng_lanes: int
    monitors: dict = field(default_factory=dict)  # QAT slot -> RangeMonitor
    qparams: dict | None = None                   # QAT slot -> QatParams, after qat.freeze
    frozen_at: int | None = None                  # the time step (exchange) of the freeze
    prng: dict = field(default_factory=dict)      # stream -> NoiseGenerator
    weights: dict = field(default_factory=dict)   # (syn, rows, cols) -> Operand
    mirror: np.ndarray | None = None              # float64 copy of the synapse words

    @property
    def half(self) -> bool:
        """The PEs run two 32x16 MACs a cycle: after the freeze, or 16-bit from the start."""
        return self.qparams is not None or self.store is not self.acc

    # ---- Algorithm 1 ----
    def read_input(self, slot: int, h: np.ndarray, monitor: bool, where: str):
        """A layer input as the PEs see it: ``(raw, frac_bits)`` (QAT codes minus their zero
        point after the freeze, else the stored format); with ``monitor`` (before the
        freeze) its range goes into ``slot``."""
        if self.qparams is not None:
            p = self.qparams.get(slot)
            if p is None:
                raise SimError(f"{where}: QAT slot {slot} was never monitored before "
                               f"qat.freeze, so it has no quantiser")
            return operand(quantize_raw(h, self.acc.frac_bits, p), p)
        if monitor and h.size:
            self.observe(slot, int(h.min()), int(h.max()), h.size)
        elif monitor:
            self.monitors.setdefault(slot, RangeMonitor())
        if self.store is self.acc:
            return h, self.acc.frac_bits
        return self.acc.cast(h, self.store), self.store.frac_bits

    @property
    def raw_inputs(self) -> bool:
        """Layer inputs reach the PEs as stored, 32-bit words (before the freeze, without a
        16-bit store): :meth:`read_input` would return them unchanged."""
        return self.qparams is None and self.store is self.acc

    def observe(self, slot: int, lo: int, hi: int, n: int) -> None:
        """Algorithm 1's monitor: ``n`` raw activations from ``lo`` to ``hi`` seen at
        ``slot``."""
        lsb = self.acc.lsb
        self.monitors.setdefault(slot, RangeMonitor()).observe_range(lo * lsb, hi * lsb, n)

    def freeze(self, bits: int, where: str) -> None:
        if self.qparams is not None:
            raise SimError(f"{where}: qat.freeze a second time (Algorithm 1 quantises once)")
        if not self.monitors:
            raise SimError(f"{where}: qat.freeze before any activation was monitored (bff "
                           f"mon=1); for 16 bits from the start use [fixar] store = 'fixed16'")
        self.qparams = {k: qat_params(m.amin, m.amax, bits) for k, m in self.monitors.items()}

    def qat_report(self) -> dict:
        if self.qparams is None:
            return {}
        return {str(k): {"delta": p.delta, "zero": p.zero,
                         "range": [self.monitors[k].amin, self.monitors[k].amax]}
                for k, p in sorted(self.qparams.items())}

    # ---- the PRNG ----
    def stream(self, s: int, where: str) -> NoiseGenerator:
        g = self.prng.get(s)
        if g is None:
            raise SimError(f"{where}: PRNG stream {s} was never seeded (rng.seed stream={s})")
        return g

    def seed(self, s: int, seed: int) -> None:
        self.prng[s] = NoiseGenerator(seed, s, self.prng_lanes)

    # ---- weight operands ----
    def mirror_of(self, S: np.ndarray) -> np.ndarray:
        """The float64 copy of the synapse memory ``S`` the weight operands live in (made on
        first use, untouched pages cost nothing); valid where an operand is cached."""
        if self.mirror is None or self.mirror.shape != S.shape:
            self.mirror = np.empty(S.shape)
            self.weights.clear()
        return self.mirror

    def operand(self, S: np.ndarray, syn: int, rows: int, cols: int) -> Operand:
        """The ``rows x cols`` weight matrix at synapse word ``syn`` prepared for the AAP
        cores: the live words, their float64 copy in :meth:`mirror_of` and a bound of
        ``max|.|``, until :meth:`written` drops it or :meth:`updated` renews it."""
        key = (syn, rows, cols)
        op = self.weights.get(key)
        if op is None:
            F = self.mirror_of(S)
            n = rows * cols
            op = self.weights[key] = operand_into(S[syn:syn + n].reshape(rows, cols),
                                                  F[syn:syn + n].reshape(rows, cols))[0]
        return op

    def operand_cols(self, S: np.ndarray, syn: int, rows: int, q: int, off: int) -> Operand:
        """Columns ``off:`` of the ``rows x q`` weight matrix at ``syn``, prepared (a view of
        :meth:`operand`'s, with its own ``max|.|``), cached likewise."""
        if off == 0:
            return self.operand(S, syn, rows, q)
        key = (syn, rows, q, off)
        op = self.weights.get(key)
        if op is None:
            W = self.operand(S, syn, rows, q)
            raw = W.raw[:, off:]
            m = max(-int(raw.min()), int(raw.max())) if raw.size else 0
            op = self.weights[key] = Operand(raw, m, W.f64[:, off:])
        return op

    def written(self, lo: int, hi: int) -> None:
        """Synapse words ``[lo, hi)`` changed: drop the operands that overlap them."""
        for key in [k for k in self.weights if k[0] < hi and lo < k[0] + k[1] * k[2]]:
            del self.weights[key]

    def updated(self, lo: int, hi: int, maxabs: int) -> None:
        """Synapse words ``[lo, hi)`` changed and their mirror words with them (the Adam
        unit's and the soft update's compiled passes), none above ``maxabs`` in magnitude:
        the operands inside keep their arrays with ``maxabs`` as their bound (exactness
        needs only a bound); those partly inside are dropped."""
        for key, op in list(self.weights.items()):
            a, b = key[0], key[0] + key[1] * key[2]
            if a < hi and lo < b:
                if lo <= a and b <= hi:
                    op.maxabs = maxabs
                else:
                    del self.weights[key]


def state_of(agent) -> FixarState:
    st = agent.state.get("fixar")
    if st is None:
        origin = agent.arch.origin
        if getattr(agent.dt, "format", None) != "q16.16":
            raise ArchError(f"{origin}: the ddpg family computes in fixed32 = q16.16 (seed 002, "
                            f"Algorithm 1); this architecture's dtype is {agent.dt.name}")
        cfg = _config(agent.arch)
        acc = agent.dt
        store = acc if cfg["store"] == "fixed32" else get_dtype(cfg["store"])
        st = agent.state["fixar"] = FixarState(acc=acc, store=store,
                                               segments=agent.arch.knobs.pwl_segments,
                                               prng_lanes=agent.timing["prng_lanes"])
    return st

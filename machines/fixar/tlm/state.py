"""What a FIXAR agent keeps between instructions: the QAT monitors and quantisers
(Algorithm 1), the PRNG streams, the number formats, and the weight operands prepared for
the AAP cores (invalidated when the weight memory is written).

**Number formats** (``machines/fixar/README.md``, "Number formats"). The accumulator's is the
architecture's ``[machine] dtype`` (q16.16: every matrix product's output, the errors of
back-propagation, the host's values, the PRNG's Gaussians); ``[fixar]`` gives the others:

* ``weights`` -- weights and biases, online and target (the weight memory's words);
* ``gradients`` -- the weight gradients (the gradient memory's words, the Adam unit's input);
* ``store`` -- stored activations before the quantization delay (``fixed32`` or ``fixed16``).

:func:`formats` checks that they fit the datapath: fixed point, at most 32 bits for weights
and gradients (the PE's 32 x 16 multipliers take a 32-bit weight; the memories' words are 32
bits), and products with at least the fraction bits of what they are rounded to. A missing
``weights`` or ``gradients`` key means the accumulator's format.

One :class:`FixarState` per agent, in ``agent.state["fixar"]``, made on first use with the
architecture's ``[fixar]`` table checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.arch import arch_table
from rlaccel.util.errors import ArchError, RlaccelError, SimError

from rlaccel.machines.fixar.tlm.kernels import Operand, operand_into
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
from rlaccel.machines.fixar.tlm.qat import RangeMonitor, operand, qat_params, quantize_raw

__all__ = ["FixarState", "Formats", "formats", "state_of", "FIXAR_KEYS", "STORES",
           "ACCUMULATOR"]

#: the ``[fixar]`` keys and their defaults (None: the accumulator's format)
FIXAR_KEYS = {"store": "fixed32", "weights": None, "gradients": None}
#: activation storage formats before the quantization delay (machines/fixar/README.md section 4)
STORES = ("fixed32", "fixed16")
#: the accumulator's format, the only one the family computes in (the PRNG's Gaussians and
#: the host's words are q16.16)
ACCUMULATOR = "q16.16"
#: the widest weight or gradient word: the PE multiplies a 32-bit weight (two 32 x 16
#: multipliers, the FIXAR paper's Fig. 5) and the weight and gradient memories hold 32-bit words
WORD_BITS = 32


@dataclass(frozen=True)
class Formats:
    """The ddpg family's number formats (module docstring)."""

    acc: object
    weight: object
    grad: object
    store: object

    def names(self) -> dict:
        return {"accumulator": self.acc.format, "weights": self.weight.format,
                "gradients": self.grad.format, "activations": self.store.format}


def _format(origin, key: str, name, acc):
    """``[fixar] key`` as a fixed-point format of at most WORD_BITS bits."""
    if name is None:
        return acc
    try:
        dt = get_dtype(name)
    except RlaccelError as exc:
        raise ArchError(f"{origin}: [fixar] {key} = {name!r}: {exc}") from None
    if dt.is_float or dt.bits > WORD_BITS:
        raise ArchError(f"{origin}: [fixar] {key} = {name!r}: the AAP cores compute in fixed "
                        f"point on words of at most {WORD_BITS} bits; give qM.N with M + N <= "
                        f"{WORD_BITS}")
    return dt


def formats(arch, acc=None) -> Formats:
    """The architecture's formats, checked against each other (an ArchError naming the key
    of an impossible combination)."""
    origin = arch.origin
    cfg = _config(arch)
    acc = acc or get_dtype(arch.knobs.dtype)
    w = _format(origin, "weights", cfg["weights"], acc)
    g = _format(origin, "gradients", cfg["gradients"], acc)
    store = acc if cfg["store"] == "fixed32" else get_dtype(cfg["store"])
    fa, fw, fg, fs = acc.frac_bits, w.frac_bits, g.frac_bits, store.frac_bits
    if fw + min(fs, fa) < fa:
        raise ArchError(f"{origin}: [fixar] weights = {w.format}: a product of a weight and "
                        f"an activation ({store.format}) has {fw + min(fs, fa)} fraction bits, "
                        f"fewer than the accumulator's {fa} ([machine] dtype = {acc.format})")
    if fa + min(fs, fa) < fg:
        raise ArchError(f"{origin}: [fixar] gradients = {g.format}: a product of an error "
                        f"({acc.format}) and an activation ({store.format}) has "
                        f"{fa + min(fs, fa)} fraction bits, fewer than the gradient's {fg}")
    return Formats(acc=acc, weight=w, grad=g, store=store)


def _config(arch) -> dict:
    origin = arch.origin
    out = {**FIXAR_KEYS, **arch_table(arch, "fixar", FIXAR_KEYS)}
    if out["store"] not in STORES:
        raise ArchError(f"{origin}: [fixar] store = {out['store']!r}; must be one of "
                        f"{', '.join(STORES)}")
    return out


def _check(arch) -> dict:
    """The family's architecture check: the ``[fixar]`` table and its formats."""
    if get_dtype(arch.knobs.dtype).format == ACCUMULATOR:
        formats(arch)
    return _config(arch)


@dataclass
class FixarState:
    """The per-agent state of the ddpg family (module docstring)."""

    acc: object                                   # fixed32 (q16.16): the machine's word
    store: object                                 # activation storage before the delay
    segments: int
    prng_lanes: int
    weight: object = None                         # weights and biases (None: acc)
    grad: object = None                           # weight gradients (None: acc)
    monitors: dict = field(default_factory=dict)  # QAT slot -> RangeMonitor
    qparams: dict | None = None                   # QAT slot -> QatParams, after qat.freeze
    frozen_at: int | None = None                  # the time step (exchange) of the freeze
    prng: dict = field(default_factory=dict)      # stream -> NoiseGenerator
    weights: dict = field(default_factory=dict)   # (syn, rows, cols) -> Operand
    mirror: np.ndarray | None = None              # float64 copy of the synapse words
    #: (pc, half) -> [executions, cycles] of the AAP cores' instructions: the phases' split
    #: of a run's cycles (machines/fixar/results.py)
    tally: dict = field(default_factory=dict)
    #: float64 words the AAP instructions' compiled calls work in (:meth:`scratch`)
    arena: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self):
        self.weight = self.weight or self.acc
        self.grad = self.grad or self.acc

    def scratch(self, *shapes: tuple[int, int]) -> list[np.ndarray]:
        """Float64 buffers of ``shapes`` (contiguous, apart from one another) for one
        instruction's products: views of one arena every AAP instruction of the agent
        shares, since a buffer's words live only within the call that fills them, so a
        step's products keep one set of buffers warm in the caches, not one per
        instruction."""
        sizes = [r * c for r, c in shapes]
        if self.arena.size < sum(sizes):
            self.arena = np.empty(sum(sizes))
        out, at = [], 0
        for (r, c), n in zip(shapes, sizes):
            out.append(self.arena[at:at + n].reshape(r, c))
            at += n
        return out

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
        m = self.monitors.get(slot)
        if m is None:
            m = self.monitors[slot] = RangeMonitor()
        lsb = self.acc.lsb
        m.observe_range(lo * lsb, hi * lsb, n)

    def freeze(self, bits: int, where: str) -> None:
        if self.qparams is not None:
            raise SimError(f"{where}: qat.freeze a second time (Algorithm 1 quantises once)")
        if not self.monitors:
            raise SimError(f"{where}: qat.freeze before any activation was monitored (bff "
                           f"mon=1); for 16 bits from the start use [fixar] store = 'fixed16'")
        self.qparams = {k: qat_params(m.amin, m.amax, bits) for k, m in self.monitors.items()}

    def count(self, pc: int, half: bool, cycles: int) -> None:
        """An AAP instruction at ``pc`` ran ``cycles`` in the 32-bit (``half`` False) or
        16-bit activation mode."""
        t = self.tally.get((pc, half))
        if t is None:
            self.tally[(pc, half)] = [1, cycles]
        else:
            t[0] += 1
            t[1] += cycles

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
        """Columns ``off:`` of the ``rows x q`` weight matrix at ``syn``, prepared (its words
        a view of :meth:`operand`'s, its float64 copy a contiguous copy of that operand's,
        which BLAS takes as it is, and its own ``max|.|``), cached until :meth:`written` or
        :meth:`updated` drops it."""
        if off == 0:
            return self.operand(S, syn, rows, q)
        key = (syn, rows, q, off)
        op = self.weights.get(key)
        if op is None:
            W = self.operand(S, syn, rows, q)
            raw = W.raw[:, off:]
            m = max(-int(raw.min()), int(raw.max())) if raw.size else 0
            op = self.weights[key] = Operand(raw, m, np.ascontiguousarray(W.f64[:, off:]))
        return op

    def written(self, lo: int, hi: int) -> None:
        """Synapse words ``[lo, hi)`` changed: drop the operands that overlap them."""
        for key in [k for k in self.weights if k[0] < hi and lo < k[0] + k[1] * k[2]]:
            del self.weights[key]

    def updated(self, lo: int, hi: int, maxabs: int) -> None:
        """Synapse words ``[lo, hi)`` changed and their mirror words with them (the Adam
        unit's and the soft update's compiled passes), none above ``maxabs`` in magnitude:
        the operands inside keep their arrays with ``maxabs`` as their bound (exactness
        needs only a bound; :meth:`~.kernels.Operand.changed`); those partly inside, and the
        column operands (:meth:`operand_cols`: their float64 words are a copy), are
        dropped."""
        for key, op in list(self.weights.items()):
            a, b = key[0], key[0] + key[1] * key[2]
            if a < hi and lo < b:
                if lo <= a and b <= hi and len(key) == 3:
                    op.changed(maxabs)
                else:
                    del self.weights[key]


def state_of(agent) -> FixarState:
    st = agent.state.get("fixar")
    if st is None:
        origin = agent.arch.origin
        if getattr(agent.dt, "format", None) != ACCUMULATOR:
            raise ArchError(f"{origin}: the ddpg family's accumulator is fixed32 = q16.16 (the "
                            f"FIXAR paper, Algorithm 1); this architecture's dtype is "
                            f"{agent.dt.name}")
        f = formats(agent.arch, agent.dt)
        st = agent.state["fixar"] = FixarState(acc=f.acc, store=f.store, weight=f.weight,
                                               grad=f.grad,
                                               segments=agent.arch.knobs.pwl_segments,
                                               prng_lanes=agent.timing["prng_lanes"])
    return st

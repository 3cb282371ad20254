"""The arithmetic the DDPG reference runs in: float (the CPU baseline, and float64 for
gradient checks) or FIXAR's fixed point (the accelerator's, without a simulator).

Both engines implement one interface, so :mod:`.reference` writes DDPG once:

* ``load(flat64)``, ``inputs(x)``: parameters and host values into the engine's words;
* ``forward(net, params, X, monitor)`` -> ``(Y, cache)``; ``backward(net, params, cache, dY,
  input_cols, weights)`` -> ``(grad_flat or None, dX or None)``;
* ``td_error``, ``unit_error``, ``negate``: the loss gradients at the outputs;
* ``adam``, ``soft``, ``add_noise``, ``to_float``.

**Loss scaling.** The critic's output gradient is the TD error ``q - y`` and the actor's is
``-dQ/da``, summed over the batch, without the ``2/B`` and ``1/B`` of mean losses: Adam's
step does not depend on a constant gradient scale (up to ``eps``), and on the fixed-point
machine the unscaled errors keep ``log2(B) - 1`` (critic) and ``log2(B)`` (actor) more
significant bits.

**The fixed-point engine** (``machines/fixar/README.md``, "Number formats"): weights and biases in
``weight_format``, the accumulator's outputs in fixed32 (q16.16), stored activations (every
layer's input, the state and action included) in ``act_format`` or, after the quantization
delay, as Algorithm 1's 16-bit codes (:mod:`rlaccel.machines.fixar.tlm.qat`); errors in
``error_format``, weight gradients in ``grad_format``. Every matrix product is
:func:`~rlaccel.machines.fixar.tlm.kernels.matmul_round` (exact sum, one rounding); ReLU is
exact and tanh is the activation unit's PWL table in fixed32, differentiated by its own
segment slope (:mod:`rlaccel.machines.fixar.tlm.activation`); Adam, the soft update and the
noise are the units' functional models.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.machines.fixar.tlm import activation
from rlaccel.machines.fixar.tlm.adam import AdamHyper, adam_fixed, adam_update
from rlaccel.machines.fixar.tlm.kernels import Operand, matmul_round, rescale, saturate
from rlaccel.machines.fixar.tlm.prng import GAUSS_FRAC
from rlaccel.machines.fixar.tlm.qat import RangeMonitor, operand, qat_params, quantize_raw
from rlaccel.machines.fixar.tlm.soft_update import soft_update_fixed, soft_update_float

from rlaccel.machines.fixar.config import ConfigError, DdpgConfig
from rlaccel.machines.fixar.network import Net

__all__ = ["FloatEngine", "FixedEngine", "make_engine", "AdamState"]


class AdamState:
    """The optimiser-state memory of one network: float32 moments and the step count."""

    def __init__(self, size: int, hp: AdamHyper) -> None:
        self.m = np.zeros(size, np.float32)
        self.v = np.zeros(size, np.float32)
        self.t = 0
        self.hp = hp


class FloatEngine:
    """numpy in ``dtype`` (float32: the CPU baseline; float64: gradient checks)."""

    name = "float"

    def __init__(self, dtype=np.float32) -> None:
        self.f = np.dtype(dtype)

    def load(self, flat64) -> np.ndarray:
        return np.asarray(flat64, dtype=self.f).copy()

    def inputs(self, x) -> np.ndarray:
        return np.asarray(x, dtype=self.f)

    @staticmethod
    def concat(s, a) -> np.ndarray:
        return np.concatenate([s, a], axis=1)

    def forward(self, net: Net, params, X, monitor: bool = False):
        views = net.views(params)
        last = len(views) - 1
        h = X
        cache = []
        for i, (W, b) in enumerate(views):
            cache.append(h)
            z = h @ W.T
            z += b
            if i < last:
                h = np.maximum(z, 0, out=z)
            elif net.out == "tanh":
                h = np.tanh(z, out=z)
            else:
                h = z
        cache.append(h)
        return h, cache

    def backward(self, net: Net, params, cache, dY, input_cols=None, weights: bool = True):
        views = net.views(params)
        last = len(views) - 1
        grads = np.empty_like(params) if weights else None
        gviews = net.views(grads) if weights else None
        d = dY
        for i in range(last, -1, -1):
            W = views[i][0]
            x, h = cache[i], cache[i + 1]
            if i == last:
                dz = d * (1 - h * h) if net.out == "tanh" else d
            else:
                dz = d * (h > 0)
            if weights:
                gW, gb = gviews[i]
                np.matmul(dz.T, x, out=gW)
                gb[...] = dz.sum(axis=0)
            if i > 0:
                d = dz @ W
            elif input_cols is not None:
                d = dz @ W[:, input_cols]
            else:
                d = None
        return grads, d

    def td_error(self, q, r, done, q_next, gamma: float):
        """``q - (r + gamma (1 - done) q')`` per sample, shape (B, 1)."""
        f = self.f.type
        keep = 1 - np.asarray(done, self.f)[:, None]
        y = np.asarray(r, self.f)[:, None] + f(gamma) * keep * q_next
        return q - y

    def unit_error(self, batch: int):
        return np.ones((batch, 1), self.f)

    @staticmethod
    def negate(d):
        return -d

    def adam(self, params, grads, st: AdamState):
        st.t += 1
        dw, st.m, st.v = adam_update(grads.astype(np.float32, copy=False), st.m, st.v, st.t,
                                     st.hp)
        return params - dw.astype(self.f, copy=False)

    @staticmethod
    def soft(target, source, tau: float):
        return soft_update_float(target, source, tau)

    def add_noise(self, a, g_raw, sigma: float):
        g = (np.asarray(g_raw, np.float64) * 2.0 ** -GAUSS_FRAC).astype(self.f)
        return a + self.f.type(sigma) * g

    @staticmethod
    def to_float(y) -> np.ndarray:
        return np.asarray(y, np.float64)

    def begin_qat(self) -> None:      # pragma: no cover - configs forbid QAT on floats
        raise ConfigError("QAT needs numerics = 'fixed'")

    def stats(self) -> dict:
        return {}


class FixedEngine:
    """FIXAR's fixed-point arithmetic (see the module docstring)."""

    name = "fixed"

    def __init__(self, cfg: DdpgConfig) -> None:
        self.w = get_dtype(cfg.weight_format)
        self.acc = get_dtype("fixed32")
        self.e = get_dtype(cfg.error_format)
        self.g = get_dtype(cfg.grad_format)
        self.store = get_dtype(cfg.act_format)
        for name, d in (("weight", self.w), ("error", self.e), ("grad", self.g)):
            if d.is_float:
                raise ConfigError(f"{name}_format = {d.name}: the fixed engine needs qM.N")
        if self.acc.frac_bits != GAUSS_FRAC:          # pragma: no cover - constants
            raise ConfigError("the PRNG's Gaussians must be in the accumulator format")
        self.segments = cfg.pwl_segments
        self.tanh_grad = cfg.tanh_grad
        self.qat_bits = cfg.qat_bits
        self.monitoring = cfg.qat
        self.monitors: dict[tuple[str, int], RangeMonitor] = {}
        self.qparams: dict | None = None
        self.sat = {k: SaturationCounter() for k in
                    ("forward", "backward", "gradient", "update", "qat")}
        self._prepared: dict[int, tuple] = {}

    def _weights(self, net: Net, params) -> list[Operand]:
        """Every layer's ``W`` as an :class:`Operand`, prepared once per parameter array (the
        arrays are replaced, never changed in place, so an array's id is its version)."""
        hit = self._prepared.get(id(params))
        if hit is None or hit[0] is not params:
            if len(self._prepared) >= 8:
                self._prepared.pop(next(iter(self._prepared)))
            hit = (params, [Operand(W) for W, _ in net.views(params)])
            self._prepared[id(params)] = hit
        return hit[1]

    # ---- words ----
    def load(self, flat64) -> np.ndarray:
        return self.w.quantize(np.asarray(flat64, np.float64), counter=self.sat["update"])

    def inputs(self, x) -> np.ndarray:
        """Host values (the state, an action, rewards) as fixed32 words."""
        return self.acc.quantize(np.asarray(x, np.float64), counter=self.sat["forward"])

    @staticmethod
    def concat(s, a) -> np.ndarray:
        return np.concatenate([s, a], axis=1)

    def to_float(self, y) -> np.ndarray:
        return self.acc.to_float(y)

    # ---- QAT ----
    def begin_qat(self) -> None:
        """Algorithm 1 at ``t == d``: freeze every monitored range into a quantiser."""
        missing = [k for k, m in self.monitors.items() if not m.seen]
        if not self.monitors or missing:
            raise ConfigError("QAT: no activation was monitored before the quantization delay "
                              "(use act_format = 'fixed16' for 16 bits from the start)")
        self.qparams = {k: qat_params(m.amin, m.amax, self.qat_bits)
                        for k, m in self.monitors.items()}
        self.monitoring = False

    def _store(self, role: str, layer: int, h: np.ndarray, monitor: bool):
        """A layer's input as written to activation memory: ``(raw, frac_bits)``."""
        if self.qparams is not None:
            p = self.qparams[(role, layer)]
            return operand(quantize_raw(h, self.acc.frac_bits, p, counter=self.sat["qat"]), p)
        if monitor and self.monitoring:
            mon = self.monitors.setdefault((role, layer), RangeMonitor())
            if h.size:
                mon.observe([int(h.min()) * self.acc.lsb, int(h.max()) * self.acc.lsb])
        if self.store.format == self.acc.format:
            return h, self.acc.frac_bits
        return self.acc.cast(h, self.store, counter=self.sat["forward"]), self.store.frac_bits

    # ---- the networks ----
    def forward(self, net: Net, params, X, monitor: bool = False):
        views = net.views(params)
        ops = self._weights(net, params)
        last = len(views) - 1
        fw, fo = self.w.frac_bits, self.acc.frac_bits
        h = X
        cache = []
        for i, (_, b) in enumerate(views):
            x, fx = self._store(net.role, i, h, monitor)
            cache.append((x, fx))
            z = matmul_round(x, ops[i].T, fx + fw - fo, self.acc, addend=b << np.int64(fx),
                             counter=self.sat["forward"])
            if i < last:
                h = np.maximum(z, 0)
            elif net.out == "tanh":
                h = activation.activate(self.acc, "tanh", z, segments=self.segments,
                                        counter=self.sat["forward"])
            else:
                h = z
        cache.append((h, fo, z))        # the output, its format, the last pre-activation
        return h, cache

    def backward(self, net: Net, params, cache, dY, input_cols=None, weights: bool = True):
        views = net.views(params)
        ops = self._weights(net, params)
        last = len(views) - 1
        fw, fe, fg = self.w.frac_bits, self.e.frac_bits, self.g.frac_bits
        grads = np.empty(net.size, np.int64) if weights else None
        gviews = net.views(grads) if weights else None
        c = self.sat["backward"]
        d = dY
        for i in range(last, -1, -1):
            W = views[i][0]
            x, fx = cache[i]
            if i == last:
                if net.out == "tanh":
                    if self.tanh_grad == "segment":
                        deriv = activation.derivative(self.acc, "tanh", cache[i + 1][2],
                                                      segments=self.segments)
                    else:
                        deriv = self.acc.derivative("tanh", cache[i + 1][0])
                    dz = self.e.mul(d, self.acc.cast(deriv, self.e, counter=c), counter=c)
                else:
                    dz = d
            else:
                dz = np.where(cache[i + 1][0] > 0, d, np.int64(0))    # ReLU' from memory
            if weights:
                gW, gb = gviews[i]
                gW[...] = matmul_round(dz.T, x, fe + fx - fg, self.g,
                                       counter=self.sat["gradient"])
                gb[...] = rescale(dz.sum(axis=0), fe - fg, self.g, self.sat["gradient"])
            if i > 0:
                d = matmul_round(dz, ops[i], fw, self.e, counter=c)
            elif input_cols is not None:
                d = matmul_round(dz, W[:, input_cols], fw, self.e, counter=c)
            else:
                d = None
        return grads, d

    # ---- output gradients ----
    def td_error(self, q, r, done, q_next, gamma: float):
        a, c = self.acc, self.sat["backward"]
        r_raw = a.quantize(np.asarray(r, np.float64), counter=c)[:, None]
        discounted = a.mul(a.quantize(gamma), q_next, counter=c)
        discounted = np.where(np.asarray(done)[:, None] > 0, np.int64(0), discounted)
        y = a.add(r_raw, discounted, counter=c)
        return a.cast(a.sub(q, y, counter=c), self.e, counter=c)

    def unit_error(self, batch: int):
        return np.full((batch, 1), self.e.one, dtype=np.int64)

    def negate(self, d):
        return saturate(-d, int(self.e.min_raw), int(self.e.max_raw), self.sat["backward"])

    # ---- units ----
    def adam(self, params, grads, st: AdamState):
        st.t += 1
        w, st.m, st.v = adam_fixed(params, grads, st.m, st.v, st.t, st.hp, self.w, self.g,
                                   counter=self.sat["update"])
        return w

    def soft(self, target, source, tau: float):
        return soft_update_fixed(target, source, tau, self.w, counter=self.sat["update"])

    def add_noise(self, a, g_raw, sigma: float):
        acc = self.acc
        noise = acc.mul(acc.quantize(sigma), np.asarray(g_raw, np.int64))
        return acc.add(a, noise, counter=self.sat["forward"])

    def stats(self) -> dict:
        out = {"saturations": {k: c.saturations for k, c in self.sat.items()}}
        if self.qparams is not None:
            out["qat"] = {f"{r}.L{i + 1}": {"delta": p.delta, "zero": p.zero,
                                             "range": [self.monitors[(r, i)].amin,
                                                       self.monitors[(r, i)].amax]}
                          for (r, i), p in sorted(self.qparams.items())}
        return out


def make_engine(cfg: DdpgConfig):
    """The engine ``cfg.numerics`` names."""
    if cfg.numerics == "fixed":
        return FixedEngine(cfg)
    return FloatEngine(np.float32 if cfg.numerics == "float32" else np.float64)

"""The VPUs' vector operations of IC3Net training in FP16 (the LearningGroup paper, section III-D: an FP16
multiplier and an FP16 adder per VPU; section IV-A: half precision throughout).

Every multiply, add, subtract, divide and square root is one binary16 operation, rounded to
nearest even (numpy's float16 arithmetic computes each operation in float32 and rounds once,
which equals the correctly rounded binary16 result). The paper names no function unit; we
take the sigmoid, tanh and exp of an FP16 input as the float64 function rounded once to
FP16 (the rule of :mod:`rlaccel.isa.dtypes` for fp16 activations). Sums of several terms are
MAC chains in index order from +0 (:func:`.vpu.dot`). The expressions follow the float
reference (:mod:`rlaccel.machines.learninggroup.ic3net`, :mod:`~.rmsprop`) operation by
operation, so the FP16 machine and the float32 reference differ only by the rounding.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import SimError

from rlaccel.machines.learninggroup.tlm import vpu

__all__ = ["F16", "sigmoid", "tanh", "exp", "softmax", "lstm_forward", "lstm_backward",
           "comm_mean", "head_grads", "rmsprop", "grouping_grad", "LSTM_OPS", "RMS_OPS"]

F16 = np.float16
_DT = get_dtype("fp16", accumulate="fp16")

#: VPU operations per LSTM unit and agent: four gate activations, f*s, i*g, +, tanh, o*tanh
LSTM_FW_OPS = 9
#: backward: ds (5), dz_i, dz_f, dz_g, dz_o (4 each), ds*f*keep (2)
LSTM_OPS = 23
#: RMSprop per word: g*scale, g*g, *(1-alpha), alpha*v, +, sqrt, +eps, /, *lr, w - .
RMS_OPS = 10
#: softmax per element: max, subtract, exp, sum, divide
SOFTMAX_OPS = 5


def _fn(f, x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", under="ignore"):
        return f(np.asarray(x, F16).astype(np.float64)).astype(F16)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return _fn(lambda v: 1.0 / (1.0 + np.exp(-v)), x)


def tanh(x: np.ndarray) -> np.ndarray:
    return _fn(np.tanh, x)


def exp(x: np.ndarray) -> np.ndarray:
    return _fn(np.exp, x)


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax along the last axis: ``e = exp(x - max)``, the sum as a MAC chain, ``e / sum``."""
    x = np.asarray(x, F16)
    e = exp(x - x.max(axis=-1, keepdims=True))
    s = vpu.dot(e, np.ones(e.shape[-1], F16))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (e / s[..., None]).astype(F16)


def lstm_forward(z: np.ndarray, s_prev: np.ndarray):
    """torch's LSTMCell from the gate pre-activations ``z`` (A x 4H: i, f, g, o) and the cell
    state: ``(gates, s, tanh_s, h)``."""
    H = s_prev.shape[-1]
    gates = np.empty_like(z)
    gates[:, :2 * H] = sigmoid(z[:, :2 * H])
    gates[:, 2 * H:3 * H] = tanh(z[:, 2 * H:3 * H])
    gates[:, 3 * H:] = sigmoid(z[:, 3 * H:])
    i, f, g, o = gates[:, :H], gates[:, H:2 * H], gates[:, 2 * H:3 * H], gates[:, 3 * H:]
    with np.errstate(over="ignore", invalid="ignore"):
        s = f * s_prev + i * g
        tanh_s = tanh(s)
        h = o * tanh_s
    return gates, s, tanh_s, h


def lstm_backward(dh, ds_next, gates, tanh_s, s_prev, keep):
    """The cell's backward pass (the reference's expressions): ``(dz, ds * f * keep)``."""
    H = dh.shape[-1]
    i, f, g, o = gates[:, :H], gates[:, H:2 * H], gates[:, 2 * H:3 * H], gates[:, 3 * H:]
    one = F16(1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        ds = dh * o * (one - tanh_s * tanh_s) + ds_next
        dz = np.empty((dh.shape[0], 4 * H), F16)
        dz[:, :H] = ds * g * i * (one - i)
        dz[:, H:2 * H] = ds * s_prev * f * (one - f)
        dz[:, 2 * H:3 * H] = ds * i * (one - g * g)
        dz[:, 3 * H:] = dh * tanh_s * o * (one - o)
        return dz, ds * f * F16(keep)


def comm_mean(h: np.ndarray, talk: np.ndarray) -> np.ndarray:
    """IC3Net's gated mean of the other agents: ``C @ h`` with ``C[i, j] = g_i g_j [i != j]
    / (A - 1)``, each output a MAC chain over j in order (C is symmetric, so the backward pass
    uses the same operation)."""
    A = h.shape[0]
    g = np.asarray(talk, F16)
    if not np.all((g == 0) | (g == 1)):
        raise SimError("talk actions must be 0 or 1")
    C = (g[:, None] * g[None, :]).astype(F16) * F16(1.0 / max(A - 1, 1))
    np.fill_diagonal(C, F16(0.0))
    return _DT.matvec(C.astype(F16), np.asarray(h, F16))


def head_grads(out: np.ndarray, act_env, act_talk, adv, ret, coef, nactions: int):
    """The heads' loss gradients per agent (REINFORCE with a value baseline, IC3Net's
    trainer): ``[adv (p - onehot(a)), adv (talk - onehot(t)), coef (v - R)]``."""
    A = out.shape[0]
    p, talk, v = out[:, :nactions], out[:, nactions:nactions + 2], out[:, nactions + 2]
    onehot = np.zeros_like(p)
    onehot_t = np.zeros_like(talk)
    for a in range(A):
        ae, at = act_env[a], act_talk[a]
        if not (0 <= ae < nactions and 0 <= at < 2) or ae != int(ae) or at != int(at):
            raise SimError(f"agent {a}: actions {float(ae)}, {float(at)} are not valid "
                           f"(0..{nactions - 1} and 0..1)")
        onehot[a, int(ae)] = 1
        onehot_t[a, int(at)] = 1
    adv = np.asarray(adv, F16)[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        d = np.empty_like(out)
        d[:, :nactions] = adv * (p - onehot)
        d[:, nactions:nactions + 2] = adv * (talk - onehot_t)
        d[:, nactions + 2] = F16(coef) * (v - np.asarray(ret, F16))
    return d


def rmsprop(w, g, v, lr, alpha, one_minus_alpha, eps):
    """torch's RMSprop (not centred, no momentum) with every operation in FP16:
    ``v = alpha v + (1 - alpha) g g``, ``w -= lr g / (sqrt(v) + eps)``; returns (w, v)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        v = F16(alpha) * v + F16(one_minus_alpha) * (g * g)
        w = w - F16(lr) * (g / (np.sqrt(v) + F16(eps)))
    return w.astype(F16), v.astype(F16)


def grouping_grad(Z: np.ndarray, r: np.ndarray, axis: int) -> np.ndarray:
    """FLGW's straight-through gradient of a grouping matrix ``Z`` (IG: rows, ``axis=1``; OG:
    columns, ``axis=0``) from ``r``, the selected entry's gradient per row or column:
    ``dZ = P * (onehot * r - r * P_sel)`` with ``P = softmax(Z)`` along the groups."""
    Zg = np.moveaxis(np.asarray(Z, F16), axis, -1)           # (rows or cols) x G
    P = softmax(Zg)
    from rlaccel.machines.learninggroup.tlm.grouping import max_index
    sel = max_index(Zg, axis=-1)
    idx = np.arange(Zg.shape[0])
    r = np.asarray(r, F16)
    with np.errstate(over="ignore", invalid="ignore"):
        t = r * P[idx, sel]
        d = np.broadcast_to(-t[:, None], P.shape).astype(F16)
        d[idx, sel] = r - t
        dZ = P * d
    return np.moveaxis(dZ.astype(F16), -1, axis)

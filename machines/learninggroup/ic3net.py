"""IC3Net (Singh, Jain & Sukhbaatar 2019) with FLGW masks, forward and backward in numpy.

The network of ``IC3Net/IC3Net`` ``comm.py`` (``CommNetMLP`` with ``--ic3net --recurrent
--rnn_type LSTM``, one communication pass, ``comm_mode avg``), for A agents at once (one row
per agent), every matrix stored input x output (``y = x W + b``, the paper's convention)::

    e_t   = x_t W_enc + b_enc                                  encoder, no activation
    cin_t = C_t h_{t-1},  C_t[j, i] = g_j g_i [i != j] / (A - 1)  gated mean of the others
    c_t   = cin_t W_comm + b_comm
    z_t   = (e_t + c_t) W_ih + b_ih + h_{t-1} W_hh + b_hh      LSTM gates i, f, g, o
    s_t   = f * s_{t-1} + i * g,   h_t = o * tanh(s_t)         (torch's LSTMCell)
    pi_t  = softmax(h_t W_act + b_act),  talk_t = softmax(h_t W_talk + b_talk)
    v_t   = h_t W_val + b_val

``g`` is each agent's previous talk action (0 at t = 0): IC3Net's hard attention gates both
the sender and the receiver. ``h`` and ``s`` start at zero every episode. A grouped layer
computes with ``W * mask`` (:mod:`.flgw`); the masks are refreshed once per iteration, after
the weight update, as the paper's instruction scheduler regroups at each new iteration.

Loss of a batch (IC3Net ``trainer.py``): ``sum_t,a [-adv (log pi(a_env) + log talk(a_talk))
+ value_coeff (v - R)^2] - entropy_coeff * entropy``, divided by the number of time steps of
the batch; ``adv = R - v`` is held constant (``values.data``). Back-propagation through time
runs over each whole episode except across the ``detach_gap`` cuts: the state entering step
t carries no gradient when ``t % detach_gap == 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.machines.learninggroup import flgw
from rlaccel.machines.learninggroup.config import LAYERS, NetConfig

__all__ = ["IC3Net", "Step", "layer_shapes", "init_params"]


def layer_shapes(net: NetConfig, obs_dim: int) -> dict[str, tuple[int, int]]:
    """(inputs, outputs) of every weight matrix."""
    H = net.hid
    return {"encoder": (obs_dim, H), "comm": (H, H), "lstm_ih": (H, 4 * H),
            "lstm_hh": (H, 4 * H), "action": (H, net.nactions), "talk": (H, 2),
            "value": (H, 1)}


def init_params(net: NetConfig, obs_dim: int, rng: np.random.Generator,
                dtype=np.float32) -> dict[str, np.ndarray]:
    """PyTorch's default initialisation: ``Linear`` weights and biases U(+-1/sqrt(fan_in)),
    ``LSTMCell`` ones U(+-1/sqrt(H)); FLGW's IG and OG N(0, 1)."""
    params = {}
    for layer, (m, n) in layer_shapes(net, obs_dim).items():
        bound = 1.0 / np.sqrt(net.hid if layer.startswith("lstm") else m)
        params[f"{layer}.W"] = rng.uniform(-bound, bound, (m, n)).astype(dtype)
        params[f"{layer}.b"] = rng.uniform(-bound, bound, n).astype(dtype)
        if net.is_grouped(layer):
            params[f"{layer}.IG"] = rng.standard_normal((m, net.groups)).astype(dtype)
            params[f"{layer}.OG"] = rng.standard_normal((net.groups, n)).astype(dtype)
    return params


@dataclass
class Step:
    """What the backward pass needs of one forward step (all agents)."""

    x: np.ndarray        # A x D observations
    comm: np.ndarray     # A x A gated averaging matrix C_t
    cin: np.ndarray      # A x H
    inp: np.ndarray      # A x H, e_t + c_t
    h_prev: np.ndarray
    s_prev: np.ndarray
    gates: np.ndarray    # A x 4H activated i, f, g, o
    s: np.ndarray
    tanh_s: np.ndarray
    h: np.ndarray
    p_env: np.ndarray    # A x nactions
    p_talk: np.ndarray   # A x 2
    value: np.ndarray    # A


class IC3Net:
    """The parameters, the per-iteration masks and the recurrent state of one episode."""

    def __init__(self, net: NetConfig, obs_dim: int, nagents: int, params: dict,
                 dtype=np.float32):
        self.net = net
        self.obs_dim = obs_dim
        self.nagents = nagents
        self.dtype = np.dtype(dtype)
        self.params = params
        self.shapes = layer_shapes(net, obs_dim)
        self.masks: dict[str, np.ndarray] = {}
        self.eff: dict[str, np.ndarray] = {}
        self.refresh_masks()
        self.steps: list[Step] = []
        self.h = self.s = None

    # ---- weight grouping ----
    def refresh_masks(self) -> None:
        """Regroup: new masks from IG/OG and the effective (masked) weights."""
        p = self.params
        for layer in LAYERS:
            W = p[f"{layer}.W"]
            if self.net.is_grouped(layer):
                self.masks[layer] = flgw.mask(p[f"{layer}.IG"], p[f"{layer}.OG"], self.dtype)
                self.eff[layer] = W * self.masks[layer]
            else:
                self.eff[layer] = W

    # ---- forward ----
    def begin_episode(self) -> None:
        A, H = self.nagents, self.net.hid
        self.h = np.zeros((A, H), self.dtype)
        self.s = np.zeros((A, H), self.dtype)
        self.steps = []

    def act(self, obs: np.ndarray, talk_prev: np.ndarray):
        """One step for all agents: ``(p_env, p_talk, value)``; the step is kept for the
        backward pass."""
        st = self._forward(np.asarray(obs, self.dtype).reshape(self.nagents, -1),
                           np.asarray(talk_prev))
        self.steps.append(st)
        self.h, self.s = st.h, st.s
        return st.p_env, st.p_talk, st.value

    def comm_matrix(self, talk_prev: np.ndarray) -> np.ndarray:
        A = self.nagents
        g = np.asarray(talk_prev, self.dtype).reshape(A)
        C = np.outer(g, g)
        np.fill_diagonal(C, 0.0)
        return C / self.dtype.type(max(A - 1, 1))

    def _forward(self, x, talk_prev) -> Step:
        p, eff, H = self.params, self.eff, self.net.hid
        h_prev, s_prev = self.h, self.s
        C = self.comm_matrix(talk_prev)
        cin = C @ h_prev
        inp = (x @ eff["encoder"] + p["encoder.b"]) + (cin @ eff["comm"] + p["comm.b"])
        z = (inp @ eff["lstm_ih"] + p["lstm_ih.b"]) + (h_prev @ eff["lstm_hh"] + p["lstm_hh.b"])
        gates = np.empty_like(z)
        gates[:, :2 * H] = _sigmoid(z[:, :2 * H])
        gates[:, 2 * H:3 * H] = np.tanh(z[:, 2 * H:3 * H])
        gates[:, 3 * H:] = _sigmoid(z[:, 3 * H:])
        i, f, g, o = gates[:, :H], gates[:, H:2 * H], gates[:, 2 * H:3 * H], gates[:, 3 * H:]
        s = f * s_prev + i * g
        tanh_s = np.tanh(s)
        h = o * tanh_s
        p_env = _softmax(h @ eff["action"] + p["action.b"])
        p_talk = _softmax(h @ eff["talk"] + p["talk.b"])
        value = (h @ eff["value"] + p["value.b"])[:, 0]
        return Step(x, C, cin, inp, h_prev, s_prev, gates, s, tanh_s, h, p_env, p_talk, value)

    def replay(self, obs_seq: np.ndarray, talk_seq: np.ndarray) -> list[Step]:
        """The forward pass of a whole episode from its observations and talk actions
        (``talk_seq[t]`` is the talk action chosen at step t; step 0 sees zeros)."""
        self.begin_episode()
        prev = np.zeros(self.nagents)
        for t in range(len(obs_seq)):
            self.act(obs_seq[t], prev)
            prev = talk_seq[t]
        return self.steps

    # ---- backward ----
    def zero_grads(self) -> dict[str, np.ndarray]:
        """Accumulators: the effective-weight gradient of every layer and the biases."""
        g = {f"{layer}.Weff": np.zeros(shape, self.dtype) for layer, shape in self.shapes.items()}
        g.update({f"{layer}.b": np.zeros(shape[1], self.dtype)
                  for layer, shape in self.shapes.items()})
        return g

    def backward_episode(self, steps: list[Step], act_env: np.ndarray, act_talk: np.ndarray,
                         adv: np.ndarray, returns: np.ndarray, acc: dict, *,
                         value_coeff: float, entropy_coeff: float, detach_gap: int) -> float:
        """Add one episode's loss gradients to ``acc`` (sums, not yet divided by the steps)
        and return its loss. ``act_*``, ``adv``, ``returns``: T x A."""
        dt = self.dtype.type
        H, T = self.net.hid, len(steps)
        eff = self.eff
        loss = 0.0
        cols = np.arange(self.nagents)
        d_env, d_talk, d_val, d_gates, d_inp = [], [], [], [], []
        dh_next = np.zeros((self.nagents, H), self.dtype)
        ds_next = np.zeros_like(dh_next)
        for t in range(T - 1, -1, -1):
            st = steps[t]
            a = adv[t].astype(self.dtype)
            de, le = _policy_head(st.p_env, act_env[t], a, entropy_coeff, cols, dt)
            dk, lk = _policy_head(st.p_talk, act_talk[t], a, entropy_coeff, cols, dt)
            err = st.value - returns[t].astype(self.dtype)
            dv = dt(2.0 * value_coeff) * err
            loss += le + lk + value_coeff * float(err @ err)
            dh = (de @ eff["action"].T + dk @ eff["talk"].T + np.outer(dv, eff["value"][:, 0])
                  + dh_next)
            i, f = st.gates[:, :H], st.gates[:, H:2 * H]
            g, o = st.gates[:, 2 * H:3 * H], st.gates[:, 3 * H:]
            ds = dh * o * (1 - st.tanh_s * st.tanh_s) + ds_next
            dz = np.empty_like(st.gates)
            dz[:, :H] = ds * g * i * (1 - i)
            dz[:, H:2 * H] = ds * st.s_prev * f * (1 - f)
            dz[:, 2 * H:3 * H] = ds * i * (1 - g * g)
            dz[:, 3 * H:] = dh * st.tanh_s * o * (1 - o)
            dinp = dz @ eff["lstm_ih"].T
            if t % detach_gap == 0:
                dh_next = np.zeros_like(dh_next)
                ds_next = np.zeros_like(ds_next)
            else:
                dh_next = dz @ eff["lstm_hh"].T + st.comm.T @ (dinp @ eff["comm"].T)
                ds_next = ds * f
            d_env.append(de), d_talk.append(dk), d_val.append(dv[:, None])
            d_gates.append(dz), d_inp.append(dinp)
        rev = slice(None, None, -1)
        stack = lambda name: np.concatenate([getattr(s, name) for s in steps])  # noqa: E731
        h_all = stack("h")
        grads = {"action": (h_all, np.concatenate(d_env[rev])),
                 "talk": (h_all, np.concatenate(d_talk[rev])),
                 "value": (h_all, np.concatenate(d_val[rev])),
                 "lstm_ih": (stack("inp"), np.concatenate(d_gates[rev])),
                 "lstm_hh": (stack("h_prev"), np.concatenate(d_gates[rev])),
                 "comm": (stack("cin"), np.concatenate(d_inp[rev])),
                 "encoder": (stack("x"), np.concatenate(d_inp[rev]))}
        for layer, (inputs, douts) in grads.items():
            acc[f"{layer}.Weff"] += inputs.T @ douts
            acc[f"{layer}.b"] += douts.sum(axis=0)
        return loss

    def param_grads(self, acc: dict, scale: float) -> dict[str, np.ndarray]:
        """Parameter gradients from the accumulators, times ``scale``: masked weights get
        none, the grouping matrices get FLGW's straight-through gradient."""
        out = {}
        s = self.dtype.type(scale)
        for layer in LAYERS:
            dWeff = acc[f"{layer}.Weff"] * s
            out[f"{layer}.b"] = acc[f"{layer}.b"] * s
            if layer in self.masks:
                out[f"{layer}.W"] = dWeff * self.masks[layer]
                dIG, dOG = flgw.grouping_grads(self.params[f"{layer}.IG"],
                                               self.params[f"{layer}.OG"],
                                               dWeff * self.params[f"{layer}.W"])
                out[f"{layer}.IG"], out[f"{layer}.OG"] = dIG, dOG
            else:
                out[f"{layer}.W"] = dWeff
        return out


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _policy_head(p, actions, adv, entropy_coeff, cols, dt):
    """d loss / d logits and the loss of ``-adv log p(a) - c * entropy``."""
    logp = np.log(p)
    onehot = np.zeros_like(p)
    onehot[cols, actions] = 1
    d = adv[:, None] * (p - onehot)
    loss = -float(adv @ logp[cols, actions])
    if entropy_coeff:
        ent = -(p * logp).sum(axis=1)
        d = d + dt(entropy_coeff) * p * (logp + ent[:, None])
        loss -= entropy_coeff * float(ent.sum())
    return d, loss

"""ADHDP in float64 written from the ADHDP paper's text alone: equations (2)-(24), Fig. 2 and Fig. 7.

This model does not follow the ADHDP programs (``fig2.inc``, ``fig7.inc``) or their memory
layout: it is the algorithm as the paper states it, with the choices the paper leaves open
made here and named below, so that the simulator running ``adhdp-f64`` can be checked
against something that is not a transcription of itself (the golden model
:mod:`.reference` is one, operation for operation). The two agree to rounding: the same
trials, actions and J estimates to about 1e-12 (``tests/machines/adhdp/test_independent.py``).

* Networks (Fig. 1): actor ``n - N_ha - m`` and critic ``(n + m) - N_hc - 1``, no biases;
  eqs. 5-9 with sigma the bipolar sigmoid ``(1 - e^-v)/(1 + e^-v)``, sigma' taken from the
  output ``(1 - y^2)/2`` (the reference learning rule, benchmarks.md 1.4); the critic's
  output is linear (eq. 9), the critic's input ``p = [x; a]`` (the order of eq. 7 is ``[a; x]``;
  the order of a dot product's terms is all that changes).
* The temporal difference is eq. 3's residual ``delta = r(t) + gamma J(t) - J(t-1)`` (eq. 4
  prints gamma on the other term, which contradicts eqs. 2-3). With ``form = "fig2"`` the
  critic loop updates ``J(t-1)`` on ``p(t-1)`` and re-evaluates it (Fig. 2, line 12 as
  written), so ``w <- w + l_c delta dJ(t-1)/dw``; with ``form = "si-wang"`` it updates and
  re-evaluates ``J(t)`` on ``p(t)``, ``w <- w - l_c gamma e dJ(t)/dw`` with
  ``e = gamma J(t) - J(t-1) + r(t)`` (Si & Wang 2001).
* Gradients (eqs. 10-13) are taken at the weights before the update, the output layer's and
  the input layer's together. A backward operation uses the activations of the last forward
  operation on the same input (a forward operation keeps them with its input, as a
  datapath keeps them in neuron registers): in the Fig. 2 form the actor's first backward
  step goes through the critic's activations of line 8 (nothing re-evaluates ``J(t)``
  between line 8 and line 17).
* The actor's cost is ``e_a^2 / 2`` with ``e_a = J(t)`` (section II-B).
* Loops run ``while i < I and cost >= E`` (Fig. 2 lines 10 and 16).
* ``virtual_update`` (Fig. 7, section IV): for the input layers of both networks, the hidden
  layer's input in iteration i is ``o(i) = o(0) + E(i) Lambda`` (eq. 21) with
  ``o(0) = W(0) p`` (eq. 22), ``Lambda = sum p_j^2`` (eq. 20) and ``E`` the sum of the
  hidden errors' steps (eq. 23); the weights get ``W += E p^T`` when the loop ends (eq. 24).
* The learning rates, the state normalisation and the plant are the host's
  (:class:`~.host.Trials`); initial weights are given (the programs draw them with
  ``.rand``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.util.errors import RlaccelError

from rlaccel.machines.adhdp.host import Trials

__all__ = ["Settings", "Network", "IndependentAdhdp", "FORMS"]

#: the critic loop's forms: Fig. 2 line 12 as written, or Si & Wang's
FORMS = ("fig2", "si-wang")


def sigma(v: np.ndarray) -> np.ndarray:
    """The bipolar sigmoid (1 - e^-v)/(1 + e^-v)."""
    return np.tanh(v / 2.0)


def sigma_prime(y: np.ndarray) -> np.ndarray:
    """Its derivative, from its output y."""
    return (1.0 - y * y) / 2.0


@dataclass(frozen=True)
class Settings:
    """The chip-side constants (Fig. 2: I_c, I_a, E_c, E_a; gamma) and the form."""

    gamma: float = 0.95
    Ic: int = 50
    Ia: int = 100
    Ec: float = 0.05
    Ea: float = 0.005
    form: str = "fig2"
    virtual_update: bool = False


class Network:
    """A two-layer network without biases (eqs. 5-6, 8-9): hidden sigma, output sigma or
    linear. ``forward`` keeps, per input key, the activations a later backward uses."""

    def __init__(self, w1: np.ndarray, w2: np.ndarray, linear_out: bool):
        self.w1 = np.array(w1, dtype=np.float64)
        self.w2 = np.array(w2, dtype=np.float64)
        self.linear_out = linear_out
        self.kept: dict = {}

    def forward(self, v: np.ndarray, key: str, hidden: np.ndarray | None = None) -> float:
        """The output on input v (or on the given hidden layer, for the virtual update);
        keeps (input, hidden, output) under ``key``."""
        h = sigma(self.w1 @ v) if hidden is None else hidden
        o = float(self.w2 @ h)
        out = o if self.linear_out else float(sigma(np.array(o)))
        self.kept[key] = (v.copy(), h.copy(), out)
        return out

    def hidden_error(self, key: str, g: float) -> np.ndarray:
        """dL/d(hidden layer's input) for an error g at the output's input, at the current
        output weights and the activations kept under key."""
        _, h, _ = self.kept[key]
        return g * self.w2 * sigma_prime(h)

    def output_grad(self, key: str, g: float) -> np.ndarray:
        _, h, _ = self.kept[key]
        return g * h


class IndependentAdhdp:
    """ADHDP from the paper's equations (see the module docstring)."""

    def __init__(self, wa1, wa2, wc1, wc2, settings: Settings = Settings()):
        if settings.form not in FORMS:
            raise RlaccelError(f"form must be one of {', '.join(FORMS)}, not {settings.form!r}")
        self.s = settings
        self.actor = Network(wa1, wa2, linear_out=False)
        self.critic = Network(wc1, wc2, linear_out=True)
        self.nx = self.actor.w1.shape[1]
        self.p_prev: np.ndarray | None = None
        self.j_prev = 0.0
        self.actions: list[float] = []
        self.j_trace: list[float] = []

    # ---- eqs. 5-9 ----
    def _act(self, x: np.ndarray) -> float:
        return self.actor.forward(x, "x")

    def _J(self, p: np.ndarray, key: str, hidden=None) -> float:
        return self.critic.forward(p, key, hidden)

    # ---- the critic loop (Fig. 2 lines 9-14, Fig. 7) ----
    def _critic_update(self, r: float, lr: float, J_t: float) -> None:
        s, c = self.s, self.critic
        fig2 = s.form == "fig2"
        key = "prev" if fig2 else "now"
        p = c.kept[key][0]

        def td(J_now, J_before):                        # eq. 3's residual, or Si & Wang's e
            if fig2:
                return r + s.gamma * J_now - J_before
            return s.gamma * J_now - J_before + r
        delta = td(J_t, self.j_prev)
        if (delta * delta) / 2.0 < s.Ec:
            return
        if s.virtual_update:
            lam = float(p @ p)                            # eq. 20
            o0 = c.w1 @ p                                 # eq. 22
            E = np.zeros_like(o0)
        for _ in range(s.Ic):
            # the error at the output's input: d(delta^2/2)/dJ(t-1) = -delta (Fig. 2 line 12),
            # or d(e^2/2)/dJ(t) = gamma e (Si & Wang), times the learning rate
            g = lr * (-delta if fig2 else s.gamma * delta)
            err = c.hidden_error(key, g)                  # eq. 11's e_i sigma'
            c.w2 = c.w2 - c.output_grad(key, g)           # eq. 10
            if s.virtual_update:
                E = E - err                               # eq. 23
                h = sigma(o0 + E * lam)                   # eq. 21
                J = self._J(p, key, hidden=h)
            else:
                c.w1 = c.w1 - np.outer(err, p)            # eq. 11
                J = self._J(p, key)                       # line 12
            if fig2:
                self.j_prev = J
                delta = td(J_t, J)
            else:
                J_t = J
                delta = td(J, self.j_prev)                # line 13
            if (delta * delta) / 2.0 < s.Ec:
                break
        if s.virtual_update:
            c.w1 = c.w1 + np.outer(E, p)                  # eq. 24

    # ---- the actor loop (lines 15-20) ----
    def _actor_update(self, x: np.ndarray, lr: float, J_t: float) -> float:
        s, a, c = self.s, self.actor, self.critic
        e_a = J_t                                         # e_a = J(t), U_c = 0
        if (e_a * e_a) / 2.0 < s.Ea:
            return a.kept["x"][2]
        if s.virtual_update:
            lam = float(x @ x)
            o0 = a.w1 @ x
            E = np.zeros_like(o0)
        for _ in range(s.Ia):
            g = lr * e_a                                  # dE_a/dJ = e_a
            ec = c.hidden_error("now", g)                 # back through the critic (eq. 13's e)
            u = a.kept["x"][2]
            g_u = float(ec @ c.w1[:, self.nx]) * sigma_prime(np.array(u))   # at a's input
            err = a.hidden_error("x", float(g_u))
            a.w2 = a.w2 - a.output_grad("x", float(g_u))  # eq. 12
            if s.virtual_update:
                E = E - err
                h = sigma(o0 + E * lam)
                u = a.forward(x, "x", hidden=h)
            else:
                a.w1 = a.w1 - np.outer(err, x)            # eq. 13
                u = self._act(x)                          # line 18
            e_a = self._J(np.concatenate([x, [u]]), "now")
            if (e_a * e_a) / 2.0 < s.Ea:
                break
        if s.virtual_update:
            a.w1 = a.w1 + np.outer(E, x)
        return a.kept["x"][2]

    # ---- one time step (Fig. 2 lines 6-21) ----
    def step(self, x: np.ndarray, r: float, lrc: float, lra: float, first: bool) -> float:
        u = self._act(x)                                  # line 7
        p = np.concatenate([x, [u]])
        J_t = self._J(p, "now")                           # line 8
        if not first:
            if self.s.form == "fig2":
                self._J(self.p_prev, "prev")              # its activations for line 11
            self._critic_update(r, lrc, J_t)
            u = self._actor_update(x, lra, J_t if self.s.form == "fig2"
                                   else self.critic.kept["now"][2])
        self.p_prev = np.concatenate([x, [u]])            # p(t) and J(t) become t-1's
        self.j_prev = self.critic.kept["now"][2]
        self.actions.append(u)
        self.j_trace.append(self.j_prev)
        return u

    def run(self, trials: Trials) -> dict:
        """Learn against the plant until the host is done; returns the learning record."""
        return trials.serve(lambda rep: self.step(
            np.asarray(rep["X"], dtype=np.float64), float(rep["R"]), float(rep["LRC"]),
            float(rep["LRA"]), bool(rep["FIRST"])))

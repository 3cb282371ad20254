"""The golden model: ADHDP (the ADHDP paper, Fig. 2 and Fig. 7) in plain numpy float64.

No simulator, no fixed point: the algorithm the ADHDP programs implement, operation for
operation in the same order, so that the simulator running ``adhdp-f64`` must produce the
same weights, actions and J estimates bit for bit. It talks to the plant through the same
:class:`programs.adhdp.host.Trials` as the simulator's host driver.

Weights live in one flat array laid out like the synapse memory (the program's symbol
addresses), and vectors in one array laid out like the unified memory, so every numpy call
sees operands of the same shape, strides and alignment as the simulator's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.machines.adhdp.host import Trials

__all__ = ["Layout", "AdhdpReference", "bsig", "dbsig"]


def bsig(v):
    """Bipolar sigmoid (1 - e^-v)/(1 + e^-v) = tanh(v/2), the float64 expression of isa.dtypes."""
    return np.tanh(v / 2.0)


def dbsig(y):
    """Its derivative from the output: (1 - y^2)/2."""
    return (1.0 - y * y) / 2.0


@dataclass(frozen=True)
class Layout:
    """Network sizes, constants and where every array lives (from a binary's symbols)."""

    nx: int
    nha: int
    nhc: int
    gamma: float
    ec_th: float
    ea_th: float
    ic: int
    ia: int
    line12: bool
    unified_words: int
    synapse_words: int
    addr: dict

    @classmethod
    def from_binary(cls, binary, unified_words: int, synapse_words: int) -> "Layout":
        sym = {s.name: s for s in binary.symbols}
        words = np.frombuffer(binary.data, dtype="<f8") if binary.data_word_bits == 64 else None
        if words is None:
            raise ValueError("the float64 reference needs a binary assembled for a float64 "
                             "architecture (adhdp-f64)")
        const = lambda n: float(words[sym[n].address])  # noqa: E731
        return cls(nx=sym["X"].length, nha=sym["HA"].length, nhc=sym["HC"].length,
                   gamma=const("GAM"), ec_th=const("ECTH"), ea_th=const("EATH"),
                   ic=sym["IC"].address, ia=sym["IA"].address,
                   line12=bool(sym["LINE12"].address), unified_words=unified_words,
                   synapse_words=synapse_words,
                   addr={n: s.address for n, s in sym.items() if s.space in ("data", "synapse")})


class AdhdpReference:
    """Float64 ADHDP; ``virtual_update`` selects Fig. 7 (eqs. 20-24) over Fig. 2."""

    def __init__(self, layout: Layout, synapse_init: np.ndarray, virtual_update: bool = False):
        L = self.L = layout
        self.vu = virtual_update
        self.U = np.zeros(L.unified_words)
        self.S = np.zeros(L.synapse_words)
        self.S[:len(synapse_init)] = synapse_init
        a = L.addr
        nx, nha, nhc, np_ = L.nx, L.nha, L.nhc, L.nx + 1
        u, s = self.U, self.S
        self.x = u[a["X"]:a["X"] + nx]
        self.p = u[a["P"]:a["P"] + np_]
        self.u = u[a["U"]:a["U"] + 1]
        self.ha = u[a["HA"]:a["HA"] + nha]
        self.hc = u[a["HC"]:a["HC"] + nhc]
        self.J = u[a["J"]:a["J"] + 1]
        self.JP = u[a["JP"]:a["JP"] + 1]
        self.R = u[a["R"]:a["R"] + 1]
        self.pp = u[a["PP"]:a["PP"] + np_]
        self.hcp = u[a["HCP"]:a["HCP"] + nhc]
        self.block, self.block_prev = u[a["P"]:a["J"] + 1], u[a["PP"]:a["JP"] + 1]
        # what the critic loop works on: p(t-1), its hidden layer, J(t-1) (Fig. 2 line 12) or
        # p(t), hc, J(t) (Si & Wang)
        self.cp, self.ch, self.cj = ((self.pp, self.hcp, self.JP) if L.line12 else
                                     (self.p, self.hc, self.J))
        self.EC = u[a["EC"]:a["EC"] + 1]
        self.G = u[a["G"]:a["G"] + 1]
        self.LG = u[a["LG"]:a["LG"] + 1]
        self.Wa1 = s[a["WA1"]:a["WA1"] + nha * nx].reshape(nha, nx)
        self.Wa2 = s[a["WA2"]:a["WA2"] + nha].reshape(1, nha)
        self.Wc1 = s[a["WC1"]:a["WC1"] + nhc * np_].reshape(nhc, np_)
        self.Wc2 = s[a["WC2"]:a["WC2"] + nhc].reshape(1, nhc)
        # virtual-update blocks after WA1 and WC1: Lambda, o0, E
        va, vc = a["WA1"] + nha * nx, a["WC1"] + nhc * np_
        self.lam_a, self.o0a, self.Ea = s[va:va + 1], s[va + 1:va + 1 + nha], \
            s[va + 1 + nha:va + 1 + 2 * nha]
        self.lam_c, self.o0c, self.Ec = s[vc:vc + 1], s[vc + 1:vc + 1 + nhc], \
            s[vc + 1 + nhc:vc + 1 + 2 * nhc]
        self.gam = np.array([L.gamma])
        self.ngam = np.array([-L.gamma])
        self.actions: list[float] = []
        self.j_trace: list[float] = []
        #: per learning step (not a trial's first step): the iterations the critic and the
        #: actor loop ran (0 when the loop's first check exits)
        self.loop_iterations: list[tuple[int, int]] = []

    @classmethod
    def from_binary(cls, binary, arch, virtual_update: bool = False) -> "AdhdpReference":
        """The model of a program assembled for a float64 architecture: its sizes,
        constants, layout and initial weights come from the binary."""
        layout = Layout.from_binary(binary, arch.geometry.unified_words,
                                    arch.knobs.synapse_words)
        return cls(layout, np.frombuffer(binary.synapse, dtype="<f8"), virtual_update)

    # ---- layers, as the instructions compute them ----
    def _actor_ff(self):
        self.ha[:] = bsig(self.Wa1 @ self.x)
        self.u[:] = bsig(self.Wa2 @ self.ha)

    def _critic_ff(self):
        self.hc[:] = bsig(self.Wc1 @ self.p)
        self.J[:] = (self.Wc2 @ self.hc).copy()

    def _critic_loop_ff(self):
        self.ch[:] = bsig(self.Wc1 @ self.cp)
        self._critic_loop_out()

    def _critic_loop_out(self):
        self.cj[:] = (self.Wc2 @ self.ch).copy()

    def _td(self):
        if self.L.line12:                     # -delta = J(t-1) - gamma J(t) - r(t)
            self.EC[:] = self.ngam * self.J - self.R + self.JP
        else:                                 # Si & Wang: e_c = gamma J(t) - J(t-1) + r(t)
            self.EC[:] = self.gam * self.J - self.JP + self.R

    @staticmethod
    def _wu(W, g, x):
        """wu: W -= g x^T."""
        W[:] = W - np.outer(g, x)

    @classmethod
    def _bp(cls, W, g, x, update):
        xin = x.copy()
        e = W.T @ g
        if update:
            cls._wu(W, g, xin)
        x[:] = dbsig(xin) * e

    def _vu_init(self, W, src, lam, o0, E, dst):
        o0[:] = W @ src
        lam[0] = src @ src
        E[:] = 0.0
        dst[:] = bsig(o0)

    @staticmethod
    def _vu_step(o0, E, lam, dst):
        """The E accumulation merged into bp.vu / bp_wu.vu (eq. 23: E -= dst, dst the
        back-propagated error), then vu.step's virtual forward (eq. 21)."""
        E[:] = E - dst
        dst[:] = bsig(o0 + E * lam[0])

    @staticmethod
    def _vu_commit(W, E, src):
        """vu.commit, the real update on loop exit (eq. 24): W += E src^T."""
        W[:] = W + np.outer(E, src)

    # ---- one exchange with the plant, then the learning of Fig. 2 / Fig. 7 ----
    def step(self, rep: dict) -> None:
        self.x[:] = rep["X"]
        self.R[:] = rep["R"]
        nx = self.L.nx
        self._actor_ff()
        self._critic_ff()
        if not rep["FIRST"]:
            ic = ia = 0
            self._td()
            self.LG[:] = np.array([rep["LRC"]]) * (np.array([1.0]) if self.L.line12
                                                   else self.gam)
            if not (self.EC * self.EC) * 0.5 < self.L.ec_th:
                if self.vu:
                    self._vu_init(self.Wc1, self.cp, self.lam_c, self.o0c, self.Ec, self.ch)
                for ic in range(1, self.L.ic + 1):           # critic loop (Fig. 2 lines 10-14)
                    self.G[:] = self.LG * self.EC
                    self._bp(self.Wc2, self.G, self.ch, update=True)
                    if self.vu:
                        self._vu_step(self.o0c, self.Ec, self.lam_c, self.ch)
                        self._critic_loop_out()
                    else:
                        self._wu(self.Wc1, self.ch, self.cp)
                        self._critic_loop_ff()
                    self._td()
                    if (self.EC * self.EC) * 0.5 < self.L.ec_th:
                        break
                if self.vu:
                    self._vu_commit(self.Wc1, self.Ec, self.cp)
            lra = np.array([rep["LRA"]])
            if not (self.J * self.J) * 0.5 < self.L.ea_th:
                if self.vu:
                    self._vu_init(self.Wa1, self.x, self.lam_a, self.o0a, self.Ea, self.ha)
                for ia in range(1, self.L.ia + 1):           # actor loop (lines 16-20)
                    self.G[:] = lra * self.J
                    self._bp(self.Wc2, self.G, self.hc, update=False)
                    self._bp(self.Wc1[:, nx:], self.hc, self.p[nx:], update=False)
                    self._bp(self.Wa2, self.u, self.ha, update=True)
                    if self.vu:
                        self._vu_step(self.o0a, self.Ea, self.lam_a, self.ha)
                        self.u[:] = bsig(self.Wa2 @ self.ha)
                    else:
                        self._wu(self.Wa1, self.ha, self.x)
                        self._actor_ff()
                    self._critic_ff()
                    if (self.J * self.J) * 0.5 < self.L.ea_th:
                        break
                if self.vu:
                    self._vu_commit(self.Wa1, self.Ea, self.x)
            self.loop_iterations.append((ic, ia))
        self.block_prev[:] = self.block.copy()       # ff.mov: p(t), hc, J(t) become (t-1)
        self.actions.append(float(self.u[0]))
        self.j_trace.append(float(self.J[0]))

    def run(self, trials: Trials) -> dict:
        """Train against the plant until the host says done; returns the learning record."""
        return trials.serve(self._act_on)

    def _act_on(self, rep: dict) -> float:
        self.step(rep)
        return float(self.u[0])

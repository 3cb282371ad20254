"""The actor and critic of the FIXAR paper as flat parameter vectors, laid out as the weight memory.

A network of widths ``(in, h1, ..., out)`` has, per layer, its ``P x Q`` weight matrix row by
row (the FIXAR paper, section V-B: "the weight memory stores the model's matrix parameters row by
row"), then its ``P`` biases. One flat vector per network lets the Adam unit and the soft
update stream over every parameter in memory order, and gives phase B the memory image.

Initialisation is Lillicrap et al.'s (2016, section 7): hidden layers uniform in
``+-1/sqrt(fan_in)`` (weights and biases), the output layer uniform in ``+-3e-3``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Net", "actor_net", "critic_net", "init_params"]

FINAL_INIT = 3e-3


@dataclass(frozen=True)
class Net:
    """A multi-layer perceptron's shape: ``role`` ("actor" or "critic"), widths ``sizes``,
    hidden layers ReLU, output activation ``out`` ("tanh" or "none")."""

    role: str
    sizes: tuple
    out: str

    @property
    def layers(self) -> list[tuple[int, int]]:
        """``(P, Q)`` per layer: outputs, inputs."""
        return [(q, p) for p, q in zip(self.sizes[:-1], self.sizes[1:])]

    @property
    def offsets(self) -> list[tuple[int, int, int]]:
        """``(w_offset, b_offset, end)`` of every layer in the flat vector."""
        out, pos = [], 0
        for p, q in self.layers:
            out.append((pos, pos + p * q, pos + p * q + p))
            pos += p * q + p
        return out

    @property
    def size(self) -> int:
        return self.offsets[-1][2]

    def views(self, flat: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(W, b)`` views into ``flat`` (``W`` is ``P x Q``, row-major)."""
        return [(flat[w:b].reshape(p, q), flat[b:e])
                for (p, q), (w, b, e) in zip(self.layers, self.offsets)]


def actor_net(state_dim: int, action_dim: int, hidden=(400, 300)) -> Net:
    """Actor S-400-300-A, ReLU, tanh output (the FIXAR paper, VI-B)."""
    return Net("actor", (state_dim, *hidden, action_dim), "tanh")


def critic_net(state_dim: int, action_dim: int, hidden=(400, 300)) -> Net:
    """Critic (S+A)-400-300-1, ReLU, linear output; the action joins the state at the input
    layer (the FIXAR paper, VI-B: "receives both the state and action as inputs"; Lillicrap et al.
    add it at the second layer instead)."""
    return Net("critic", (state_dim + action_dim, *hidden, 1), "none")


def init_params(net: Net, rng: np.random.Generator) -> np.ndarray:
    """Lillicrap's initial parameters as a float64 flat vector."""
    flat = np.empty(net.size, dtype=np.float64)
    last = len(net.layers) - 1
    for i, (W, b) in enumerate(net.views(flat)):
        lim = FINAL_INIT if i == last else 1.0 / np.sqrt(W.shape[1])
        W[...] = rng.uniform(-lim, lim, size=W.shape)
        b[...] = rng.uniform(-lim, lim, size=b.shape)
    return flat

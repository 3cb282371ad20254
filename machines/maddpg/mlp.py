"""The float32 multi-layer perceptrons of MADDPG and the Gumbel-softmax policy head.

A network is a list of layers ``(W, b)`` with ``W`` of shape ``(out, in)`` -- the
accelerator's row-major weight matrix, ``ID = in``, ``OD = out`` in the MADDPG paper's eq. 4 -- and
``b`` of shape ``(out,)``; hidden layers use ReLU and the last layer is linear, as
openai/maddpg's ``mlp_model``. A batch is a ``(B, in)`` array, one sample per row, so a layer
is ``X @ W.T + b`` (one BLAS call: this module is also the CPU-only baseline).

Initialisation is TensorFlow's ``fully_connected`` default, which the reference uses:
Glorot-uniform weights (limit ``sqrt(6 / (in + out))``), zero biases.

The host's sample generation uses :func:`forward` and :func:`gumbel_softmax` too (the
policies act on the CPU with the weights the learners send back, the MADDPG paper section III-A), so
the reference and the accelerator's host act identically.
"""

from __future__ import annotations

import numpy as np

__all__ = ["init_mlp", "forward", "backward", "gumbel_softmax", "softmax_backward",
           "param_count"]


def init_mlp(rng: np.random.Generator, sizes) -> list:
    """Layers for widths ``sizes = (in, h1, ..., out)``: Glorot-uniform W, zero b."""
    layers = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        lim = np.sqrt(6.0 / (n_in + n_out))
        W = rng.uniform(-lim, lim, size=(n_out, n_in)).astype(np.float32)
        layers.append((W, np.zeros(n_out, np.float32)))
    return layers


def param_count(layers) -> int:
    return sum(W.size + b.size for W, b in layers)


def forward(layers, X: np.ndarray) -> tuple[np.ndarray, list]:
    """Outputs ``(B, out)`` and the inputs of every layer (what :func:`backward` needs)."""
    h = np.asarray(X)
    inputs = []
    last = len(layers) - 1
    for l, (W, b) in enumerate(layers):
        inputs.append(h)
        z = h @ W.T
        z += b
        h = z if l == last else np.maximum(z, 0.0, out=z)
    return h, inputs


def backward(layers, inputs: list, dout: np.ndarray, input_grad: bool = False):
    """Gradients of a scalar loss whose gradient w.r.t. the outputs is ``dout`` ``(B, out)``:
    a list of ``(dW, db)`` per layer and, with ``input_grad``, the gradient w.r.t. the
    network's input (else None). ReLU's derivative is taken from the layer output (> 0).

    Arrays keep their dtype (float32 in a run; the tests check gradients in float64)."""
    g = np.asarray(dout)
    grads: list = [None] * len(layers)
    dx = None
    for l in range(len(layers) - 1, -1, -1):
        W, _ = layers[l]
        x = inputs[l]
        grads[l] = (g.T @ x, g.sum(axis=0))
        if l > 0:
            g = (g @ W) * (x > 0)                 # x is layer l-1's ReLU output
        elif input_grad:
            dx = g @ W
    return grads, dx


def gumbel_softmax(logits: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """``softmax(logits + noise)`` row by row, float32 (openai/maddpg's
    ``SoftCategoricalPd.sample`` with the Gumbel noise given)."""
    z = np.asarray(logits) + noise
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_backward(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """Gradient w.r.t. the softmax input, from its output ``y`` and the output gradient:
    ``y * (dy - sum(dy * y))`` per row (the noise is additive, so this is also the gradient
    w.r.t. the logits)."""
    return y * (dy - (dy * y).sum(axis=-1, keepdims=True))

"""The networks: Glorot initialisation, forward as X @ W.T + b with ReLU, gradients equal to
finite differences, the Gumbel-softmax head and its backward pass."""

import numpy as np
import pytest

from rlaccel.machines.maddpg.mlp import (backward, forward, gumbel_softmax, init_mlp,
                                          param_count, softmax_backward)


def f64(layers):
    return [(W.astype(np.float64), b.astype(np.float64)) for W, b in layers]


def test_init_shapes_and_glorot_limits():
    """W is (out, in) float32 within +-sqrt(6/(in+out)); biases are zero."""
    layers = init_mlp(np.random.default_rng(0), (22, 64, 64, 1))
    assert [W.shape for W, _ in layers] == [(64, 22), (64, 64), (1, 64)]
    assert param_count(layers) == 22 * 64 + 64 + 64 * 64 + 64 + 64 + 1
    for (W, b), (n_in, n_out) in zip(layers, [(22, 64), (64, 64), (64, 1)]):
        assert W.dtype == np.float32 and not b.any()
        assert np.abs(W).max() <= np.sqrt(6 / (n_in + n_out))
        assert np.abs(W).max() > 0.9 * np.sqrt(6 / (n_in + n_out))   # uses the whole range


def test_forward_by_hand():
    """Hidden layers are ReLU, the output layer is linear."""
    layers = [(np.array([[1.0, -1.0], [2.0, 0.5]]), np.array([0.0, -3.0])),
              (np.array([[1.0, 1.0]]), np.array([0.5]))]
    y, inputs = forward(layers, np.array([[3.0, 1.0]]))
    # hidden: relu([2, 3.5]) = [2, 3.5] -> 5.5 + 0.5
    assert y.tolist() == [[6.0]]
    y, _ = forward(layers, np.array([[1.0, 2.0]]))
    # hidden: relu([-1, -0]) = [0, 0] -> 0.5 (a linear output may be anything)
    assert y.tolist() == [[0.5]]
    assert [x.tolist() for x in inputs] == [[[3.0, 1.0]], [[2.0, 3.5]]]


@pytest.mark.parametrize("sizes", [(5, 7, 3), (4, 6, 6, 2), (3, 1)])
def test_gradients_equal_finite_differences(sizes):
    """backward's dW, db and input gradient equal central differences of
    L = sum(C * forward(X)) (float64, away from ReLU kinks)."""
    rng = np.random.default_rng(1)
    layers = f64(init_mlp(rng, sizes))
    layers = [(W, rng.normal(size=b.shape)) for W, b in layers]
    X = rng.normal(size=(4, sizes[0]))
    C = rng.normal(size=(4, sizes[-1]))
    loss = lambda: float(np.sum(C * forward(layers, X)[0]))  # noqa: E731
    _, inputs = forward(layers, X)
    grads, dx = backward(layers, inputs, C, input_grad=True)
    h = 1e-6
    for (W, b), (dW, db) in zip(layers, grads):
        for p, dp in ((W, dW), (b, db)):
            num = np.zeros_like(p)
            for idx in np.ndindex(p.shape):
                old = p[idx]
                p[idx] = old + h
                up = loss()
                p[idx] = old - h
                num[idx] = (up - loss()) / (2 * h)
                p[idx] = old
            np.testing.assert_allclose(dp, num, rtol=1e-6, atol=1e-8)
    num = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        old = X[idx]
        X[idx] = old + h
        up = loss()
        X[idx] = old - h
        num[idx] = (up - loss()) / (2 * h)
        X[idx] = old
    np.testing.assert_allclose(dx, num, rtol=1e-6, atol=1e-8)


def test_no_input_gradient_unless_asked():
    layers = f64(init_mlp(np.random.default_rng(0), (3, 4, 2)))
    _, inputs = forward(layers, np.ones((2, 3)))
    assert backward(layers, inputs, np.ones((2, 2)))[1] is None


def test_gumbel_softmax_by_hand():
    """softmax(logits + noise): logits [0, ln 3] with no noise give [1/4, 3/4]; noise
    [ln 3, 0] makes them equal; rows are independent and sum to 1."""
    logits = np.array([[0.0, np.log(3.0)], [0.0, np.log(3.0)]])
    y = gumbel_softmax(logits, np.array([[0.0, 0.0], [np.log(3.0), 0.0]]))
    np.testing.assert_allclose(y, [[0.25, 0.75], [0.5, 0.5]], rtol=1e-15)
    big = gumbel_softmax(np.array([[1000.0, 0.0]]), np.zeros((1, 2)))   # no overflow
    assert big.tolist() == [[1.0, 0.0]]


def test_softmax_backward_equals_finite_differences():
    """softmax_backward(y, dy) is the gradient of sum(dy * softmax(z)) w.r.t. z."""
    rng = np.random.default_rng(2)
    z, dy = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    y = gumbel_softmax(z, np.zeros_like(z))
    g = softmax_backward(y, dy)
    h = 1e-6
    for idx in np.ndindex(z.shape):
        zp, zm = z.copy(), z.copy()
        zp[idx] += h
        zm[idx] -= h
        num = (np.sum(dy * gumbel_softmax(zp, 0 * z)) - np.sum(dy * gumbel_softmax(zm, 0 * z)))
        assert abs(g[idx] - num / (2 * h)) < 1e-8

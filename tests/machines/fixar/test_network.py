"""The actor and critic of the FIXAR paper as flat parameter vectors in weight-memory order."""

import numpy as np

from rlaccel.machines.fixar.network import actor_net, critic_net, init_params


def test_sizes_fill_the_seeds_weight_memory():
    """HalfCheetah: actor 17-400-300-6 has 129,306 parameters, critic 23-400-300-1 130,201;
    at 4 bytes a word the two are 1.038 MB, the paper's 1.05 MB weight memory (section III)."""
    a, c = actor_net(17, 6), critic_net(17, 6)
    assert a.size == 17 * 400 + 400 + 400 * 300 + 300 + 300 * 6 + 6 == 129_306
    assert c.size == 23 * 400 + 400 + 400 * 300 + 300 + 300 + 1 == 130_201
    assert 4 * (a.size + c.size) == 1_038_028


def test_layout_is_row_major_then_biases():
    net = actor_net(2, 1, hidden=(3,))
    flat = np.arange(net.size, dtype=np.float64)
    (W1, b1), (W2, b2) = net.views(flat)
    assert W1.tolist() == [[0, 1], [2, 3], [4, 5]] and b1.tolist() == [6, 7, 8]
    assert W2.tolist() == [[9, 10, 11]] and b2.tolist() == [12]
    assert net.layers == [(3, 2), (1, 3)] and net.out == "tanh"
    assert critic_net(2, 1, (3,)).sizes == (3, 3, 1)


def test_lillicrap_initialisation():
    net = actor_net(17, 6)
    flat = init_params(net, np.random.default_rng(0))
    (W1, b1), (W2, _), (W3, b3) = net.views(flat)
    assert np.abs(W1).max() <= 1 / np.sqrt(17) and np.abs(W1).max() > 0.9 / np.sqrt(17)
    assert np.abs(W2).max() <= 1 / np.sqrt(400)
    assert np.abs(W3).max() <= 3e-3 and np.abs(b3).max() <= 3e-3
    assert (init_params(net, np.random.default_rng(0)) == flat).all()

"""The update rules: per-tensor norm clipping, TensorFlow 1 Adam, SGD, the soft target update."""

import numpy as np
import pytest

from rlaccel.machines.maddpg.config import MaddpgConfig
from rlaccel.machines.maddpg.optim import Adam, Sgd, clip_by_norm, make_optimizer, soft_update


def layer(*values):
    return (np.array(values[0], np.float32), np.array(values[1], np.float32))


def test_clip_by_norm_per_tensor():
    """Each tensor is scaled to norm <= clip on its own: W = [[3, 4]] (norm 5) becomes
    [[0.3, 0.4]] at clip 0.5 while b = [0.1] (norm 0.1) is unchanged; None clips nothing."""
    g = [layer([[3.0, 4.0]], [0.1])]
    (W, b), = clip_by_norm(g, 0.5)
    np.testing.assert_allclose(W, [[0.3, 0.4]], rtol=1e-6)
    assert b.tolist() == np.float32([0.1]).tolist()
    assert clip_by_norm(g, None) is g


def test_adam_moves_lr_per_step_for_a_constant_gradient():
    """TF1 Adam's bias correction makes every step exactly lr * sign(g) (up to eps) when the
    gradient is constant: after 3 steps with g = (0.5, -2), theta = theta0 - 3 lr (1, -1)."""
    p = [layer([[1.0, 1.0]], [0.0])]
    opt = Adam(p, lr=0.01)
    for _ in range(3):
        opt.step(p, [layer([[0.5, -2.0]], [0.0])])
    np.testing.assert_allclose(p[0][0], [[0.97, 1.03]], rtol=0, atol=2e-6)
    assert p[0][1].tolist() == [0.0] and opt.t == 3


def test_adam_first_step_by_hand():
    """First step from m = v = 0: m = 0.1 g, v = 0.001 g^2, lr_t = lr sqrt(0.001) / 0.1,
    theta -= lr_t m / (sqrt(v) + eps)."""
    g, lr, eps = 0.25, 0.1, 1e-8
    p = [layer([[2.0]], [0.0])]
    Adam(p, lr=lr, eps=eps).step(p, [layer([[g]], [0.0])])
    want = 2.0 - lr * np.sqrt(0.001) / 0.1 * (0.1 * g) / (np.sqrt(0.001 * g * g) + eps)
    assert abs(float(p[0][0][0, 0]) - want) < 1e-6


def test_sgd_and_factory():
    p = [layer([[1.0]], [1.0])]
    Sgd(p, lr=0.5).step(p, [layer([[2.0]], [-1.0])])
    assert (p[0][0].tolist(), p[0][1].tolist()) == ([[0.0]], [1.5])
    assert isinstance(make_optimizer(MaddpgConfig(), p), Adam)
    assert isinstance(make_optimizer(MaddpgConfig(optimizer="sgd"), p), Sgd)


def test_soft_update():
    """theta' = (1 - tau) theta' + tau theta: from 0 toward 1 with tau 0.01, 0.01 then 0.0199."""
    t, s = [layer([[0.0]], [0.0])], [layer([[1.0]], [-1.0])]
    soft_update(t, s, 0.01)
    np.testing.assert_allclose(t[0][0], [[0.01]], rtol=1e-6)
    soft_update(t, s, 0.01)
    np.testing.assert_allclose([t[0][0][0, 0], t[0][1][0]], [0.0199, -0.0199], rtol=1e-6)


@pytest.mark.parametrize("kw, message", [
    ({"optimizer": "rmsprop"}, "optimizer must be one of adam, sgd, not 'rmsprop'"),
    ({"batch": 0}, "batch must be a positive integer, not 0"),
    ({"gamma": 1.5}, r"gamma must be in \[0.0, 1.0\], not 1.5"),
    ({"hidden": (64, 0)}, r"hidden must list positive layer widths, not \(64, 0\)"),
    ({"schedule": "async"}, "schedule must be one of parallel, sequential"),
])
def test_config_errors(kw, message):
    from rlaccel.programs.manifest import ManifestError
    with pytest.raises(ManifestError, match=message):
        MaddpgConfig(**kw)


def test_config_defaults_are_the_reference():
    """openai/maddpg's values; learning starts after batch * episode length stored steps."""
    c = MaddpgConfig()
    assert (c.lr, c.gamma, c.tau, c.batch, c.buffer, c.update_every, c.hidden,
            c.grad_clip, c.max_episode_len) == (1e-2, 0.95, 0.01, 1024, 10**6, 100, (64, 64),
                                                0.5, 25)
    assert c.start == 25600 and MaddpgConfig(learning_starts=7).start == 7

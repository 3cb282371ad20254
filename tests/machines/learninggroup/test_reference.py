"""The float reference (machines/learninggroup/reference.py): determinism, one iteration's
bookkeeping, the grouping it trains."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.learninggroup.config import (ConfigError, LearningConfig, NetConfig)
from rlaccel.machines.learninggroup.reference import Ic3netReference

SMALL = {"nagents": 3, "dim": 4, "vision": 0, "max_steps": 10}


def _ref(seed=1, groups=2, hid=16, dtype="float32"):
    return Ic3netReference(NetConfig(hid=hid, groups=groups),
                           LearningConfig(env_kwargs=SMALL, batch_episodes=3, seed=seed,
                                          dtype=dtype))


def test_same_seed_same_bits():
    """Two runs with one seed give identical parameters and curves after 3 iterations; a
    different seed gives different ones."""
    a, b, c = _ref(1), _ref(1), _ref(2)
    ca, cb = a.train(3).curve, b.train(3).curve
    c.train(3)
    assert ca == cb
    for name, v in a.model.params.items():
        assert v.dtype == np.float32
        assert np.array_equal(v, b.model.params[name]), name
    assert not np.array_equal(a.model.params["lstm_ih.W"], c.model.params["lstm_ih.W"])


def test_an_iteration_updates_weights_biases_and_grouping_matrices():
    """After one iteration every parameter moved (RMSprop's first step moves every entry
    with a non-zero gradient by about lr), except the masked weights, which got none."""
    ref = _ref(3)
    before = {k: v.copy() for k, v in ref.model.params.items()}
    masks = {k: m.copy() for k, m in ref.model.masks.items()}
    row = ref.iteration()
    assert row["iteration"] == 1 and row["episodes"] == 3
    for name, v in ref.model.params.items():
        moved = v != before[name]
        layer, kind = name.split(".")
        if kind == "W" and layer in masks:
            assert not moved[masks[layer] == 0].any(), name
            assert moved[masks[layer] == 1].mean() > 0.5, name
        else:
            assert moved.mean() > 0.5, name
        step = np.abs(v - before[name]).max()
        assert step <= 1e-3 / np.sqrt(1 - 0.97) * 1.01, name


def test_density_is_about_one_over_g():
    """The kept fraction of the grouped layers is close to 1/G; 1.0 for the dense net."""
    assert _ref(groups=1).density() == 1.0
    d = _ref(groups=4, hid=64).density()
    assert 0.15 < d < 0.35


def test_success_rate_over_the_last_iterations():
    """TrainResult.success_rate weighs iterations by their episodes."""
    from rlaccel.machines.learninggroup.reference import TrainResult
    r = TrainResult(curve=[{"episodes": 2, "success_rate": 1.0, "steps": 5},
                           {"episodes": 6, "success_rate": 0.5, "steps": 9}])
    assert r.success_rate() == pytest.approx(0.625) and r.success_rate(last=1) == 0.5
    assert r.steps == 14


def test_config_errors_name_the_knob():
    """Knobs out of range are ConfigErrors that say which and what."""
    with pytest.raises(ConfigError, match=r"groups must be >= 1, not 0"):
        NetConfig(groups=0)
    with pytest.raises(ConfigError, match=r"grouped layers \['action'\] are not among"):
        NetConfig(grouped=("action",))
    with pytest.raises(ConfigError, match=r"dtype must be float32 or float64, not 'fp16'"):
        LearningConfig(dtype="fp16")

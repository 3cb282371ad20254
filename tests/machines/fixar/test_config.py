"""A bad DDPG configuration is a clear error that names the key."""

import pytest

from rlaccel.machines.fixar.config import ConfigError, DdpgConfig


def test_defaults_are_the_seeds():
    c = DdpgConfig()
    assert c.hidden == (400, 300) and c.lr_actor == c.lr_critic == 1e-4
    assert c.batch == 64 and c.eval_every == 5000 and c.eval_episodes == 10 and not c.qat


@pytest.mark.parametrize("kw, msg", [
    ({"numerics": "int8"}, "numerics = 'int8'; must be one of float32, float64, fixed"),
    ({"batch": 0}, "batch = 0 must be a positive integer"),
    ({"tau": 1.5}, r"tau = 1.5 must be in \(0, 1\]"),
    ({"qat_delay": 10}, "qat_delay needs numerics = 'fixed'"),
    ({"act_format": "q4.12"}, "act_format = 'q4.12'; must be one of fixed32, fixed16"),
])
def test_errors(kw, msg):
    with pytest.raises(ConfigError, match=msg):
        DdpgConfig(**kw)


def test_with_names_unknown_keys():
    assert DdpgConfig().with_(batch=128).batch == 128
    with pytest.raises(ConfigError, match="has no key 'bacth'"):
        DdpgConfig().with_(bacth=128)

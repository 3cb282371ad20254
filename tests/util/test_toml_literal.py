"""util.toml_literal: every value it writes reads back unchanged; what TOML cannot hold is refused."""

import tomllib

import pytest

from rlaccel.util.toml_literal import toml_literal


@pytest.mark.parametrize("v", [True, False, 0, -7, 2**62, 0.1, -1e-300, 1e300, "", "q6.12",
                               'a "b" \\ \n', [1, 2.5, "x"], (3, 4), {"a": 1, "b c": [True]}])
def test_round_trip(v):
    back = tomllib.loads(f"x = {toml_literal(v)}")["x"]
    assert back == (list(v) if isinstance(v, tuple) else v)


@pytest.mark.parametrize("v", [float("nan"), float("inf"), -float("inf"), None, object(), [1, None]])
def test_refused(v):
    with pytest.raises(ValueError):
        toml_literal(v)

"""machines/darl/bench/reference.py's target window: the first stage at which the mean of the last K
stage returns (a full window) reaches the target, which the one-agent against eight-agent
comparison of machines/darl/README.md section 13.7 rests on."""

import importlib.util
from pathlib import Path

import pytest
from rlaccel.isa.machine import machine

_PATH = machine("darl").path / "bench" / "reference.py"
_spec = importlib.util.spec_from_file_location("darl_reference", _PATH)
darl_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(darl_reference)


def test_a_window_of_one_is_the_first_stage_at_the_target():
    assert darl_reference.first_window_stage([10, 500, 20, 500], 1, 500.0) == 2


def test_the_window_must_be_full_and_its_mean_at_the_target():
    r = [500, 500, 100, 500, 500, 500, 499, 501]
    assert darl_reference.first_window_stage(r, 3, 500.0) == 6       # 500, 500, 500
    assert darl_reference.first_window_stage(r, 2, 500.0) == 2
    assert darl_reference.first_window_stage(r[:2], 3, 500.0) is None  # no full window
    assert darl_reference.first_window_stage([499, 501, 499], 2, 500.0) == 2   # the mean


@pytest.mark.parametrize("bad", ["0", "-2"])
def test_a_window_below_one_is_refused(bad, capsys):
    with pytest.raises(SystemExit):
        darl_reference.main(["--window", bad])
    assert f"--window {bad}: give a number of stages, 1 or more" in capsys.readouterr().err

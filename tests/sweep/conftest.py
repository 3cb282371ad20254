"""Tiny sweeps over the cart-pole manifest: a few points of one or two short trials."""

from pathlib import Path

import pytest
from rlaccel.isa.machine import machine

ROOT = Path(__file__).parents[2]
CARTPOLE = machine("adhdp").programs / "cartpole.toml"

TINY = f"""\
description = "tiny"
manifest = "{CARTPOLE}"
[set]
stop_on_success = false
trials = 1
max_steps = 30
[axes]
"arch.machine.dtype" = ["float64", "q6.10"]
seed = {{range = [1, 3]}}
[metrics]
balanced = "sum(learning.steps_per_trial)"
cycles = "cycles"
"""


@pytest.fixture
def write_spec(tmp_path):
    """Write a spec's text to a file in tmp_path; returns its path."""
    def write(text: str = TINY, name: str = "spec.toml") -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p
    return write

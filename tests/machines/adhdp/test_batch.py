"""``rlaccel run ... --seeds``: every member of a batch equals its single run (weights,
cycles, energy, learning curves: the whole report but wall-clock figures), with the compiled
cart-pole twin and with each member's own host; the twin steps exactly as the environment."""

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import rlaccel.programs.envs  # noqa: F401
from rlaccel.machines.adhdp.plant import cartpole_params, cartpole_steps
from rlaccel.programs.runner import run, run_batch
from rlaccel.isa.machine import machine

ROOT = Path(__file__).parents[3]


def _strip(o):
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k not in ("sim", "measured_s")}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


@pytest.mark.parametrize("manifest,arch,over", [
    ("cartpole.toml", "adhdp", ["max_steps=1000"]),
    ("cartpole.toml", "adhdp-vu-f64", ["virtual_update=true", "max_steps=1000"]),
    ("cartpole_large.toml", "adhdp-vu", ["virtual_update=true", "max_steps=300"]),
    ("triple_link.toml", "adhdp", ["max_steps=40"]),        # no twin: each member's host
])
def test_batch_members_equal_single_runs(manifest, arch, over):
    path = machine("adhdp").programs / manifest
    seeds = [1, 2, 3, 5]
    b = run_batch(path, over, seeds=seeds, arch=arch, trials=4)
    assert b["seeds"] == seeds and len(b["members"]) == 4
    for s, member in zip(seeds, b["members"]):
        single = run(path, over, seed=s, arch=arch, trials=4)
        assert _strip(member) == _strip(single), s
    steps = [m["learning"]["steps_per_trial"] for m in b["members"]]
    assert len({tuple(x) for x in steps}) > 1                 # the members really differ


def test_cartpole_twin_steps_as_the_environment():
    rng = np.random.default_rng(5)
    for kwargs in ({}, {"force_mode": "analog", "substeps": 3}):
        env = gym.make("rlaccel/CartPoleADP-v0", **kwargs).unwrapped
        P = cartpole_params(env)[None, :]
        for trial in range(200):
            state = rng.normal(0, [0.1, 1.0, 1.0, 1.0])
            u = float(rng.choice([0.0, -0.0, 1.5, -3.0, rng.normal()]))
            env.reset(options={"state": state})
            obs, r, term, _, _ = env.step(np.array([u]))
            S = state[None, :].copy()
            t = np.zeros(1, dtype=np.int64)
            cartpole_steps(S, np.array([u]), np.array([0]), P, t)
            assert S[0].tobytes() == obs.tobytes() and bool(t[0]) == term


def test_cli_seeds(tmp_path, capsys):
    from rlaccel.cli import main
    out = tmp_path / "b.json"
    assert main(["run", str(ROOT / "machines/adhdp/programs/cartpole.toml"), "--seeds", "2-3,5",
                 "--trials", "3", "-q", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    members = json.loads(out.read_text())["members"]
    assert [m["seed"] for m in members] == [2, 3, 5]
    for m in members:                     # one summary line per member, as its JSON says
        line = next(x for x in text.splitlines() if x.startswith(f"seed {m['seed']}: "))
        assert f"learning: {m['learning']['trials']} trials" in line
    assert "batch: 3 runs" in text
    assert main(["run", str(ROOT / "machines/adhdp/programs/cartpole.toml"), "--seeds", "1-2",
                 "--trace", str(tmp_path / "t.json")]) == 1
    assert "does not take --trace" in capsys.readouterr().err

"""``rlaccel run MANIFEST --seeds LIST`` on every machine: each member's report equals its
single run's bit for bit (weights, cycles, energy, learning curves: everything but the
wall-clock figures under ``timing``), whether the members run as one batch (one agent) or
one after another (several agents), on the machines' smallest workloads."""

import json

import pytest

from rlaccel.cli import main
from rlaccel.isa.machine import machine
from rlaccel.programs.runner import run, run_batch

#: machine -> (manifest, --set values, budget): small networks, learning from the start
CASES = {
    "adhdp": ("cartpole.toml", ["max_steps=200"], {"trials": 2}),
    "fixar": ("pendulum.toml", ["learning.start_steps=6", "learning.batch=4",
                                "learning.hidden=[16, 16]", "learning.eval_every=1000000"],
              {"steps": 10}),
    "maddpg": ("speaker_listener.toml", ["learning.batch=16", "learning.learning_starts=16",
                                         "learning.update_every=10", "learning.hidden=[8, 8]"],
               {"steps": 40}),
    "learninggroup": ("predator_prey.toml", ["learning.batch_episodes=1", "network.hid=16",
                                             "environment_kwargs.max_steps=6"], {"steps": 10}),
    "darl": ("cartpole.toml", ["learning.d=256", "stop_at_target=false"], {"steps": 30}),
}


def _stable(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "timing"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_members_equal_single_runs(name):
    manifest, over, budget = CASES[name]
    path = machine(name).programs / manifest
    seeds = [1, 4]
    b = run_batch(path, over, seeds=seeds, **budget)
    assert b["seeds"] == seeds and len(b["members"]) == len(seeds)
    # one batched simulation where the plugin answers every member's exchange at once (the
    # ADHDP cart-pole's compiled twin); each member's own run otherwise
    assert b["sim"]["run"] == ("batch" if name == "adhdp" else "one by one")
    for s, member in zip(seeds, b["members"]):
        assert member["seed"] == s
        assert _stable(member) == _stable(run(path, over, seed=s, **budget)), s
    a, c = ({k: v for k, v in _stable(r).items() if k != "seed"} for r in b["members"])
    assert a != c                                   # the seeds made different runs


def test_the_command_line_runs_the_seeds(tmp_path, capsys):
    manifest, over, budget = CASES["learninggroup"]
    out = tmp_path / "b.json"
    sets = [a for o in over for a in ("--set", o)]
    assert main(["run", str(machine("learninggroup").programs / manifest), *sets,
                 "--steps", str(budget["steps"]), "--seeds", "2-3", "--json", str(out),
                 "-q"]) == 0
    text = capsys.readouterr().out
    assert "seed 2:" in text and "seed 3:" in text and "batch: 2 runs" in text
    assert [r["seed"] for r in json.loads(out.read_text())["members"]] == [2, 3]

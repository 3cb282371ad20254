"""Two runs of each machine with the same seed give identical report JSON outside its
top-level ``timing`` key, where every wall-clock and host-measured figure (and every figure
derived from one, such as a system IPS) is kept, so runs can be compared with ``diff``."""

import json
import subprocess
import sys

import pytest

from tests.test_golden_results import ROOT, flat, manifest_path


#: one short run of each machine (the golden cases' settings, shorter still)
TWICE = {"adhdp": ("adhdp/cartpole.toml", ["--trials", "1"]),
         "fixar": ("fixar/pendulum.toml", ["--steps", "120", "--set", "learning.start_steps=40",
                                           "--set", "learning.batch=8"]),
         "maddpg": ("maddpg/speaker_listener.toml",
                    ["--steps", "150", "--set", "learning.batch=16",
                     "--set", "learning.update_every=50", "--set",
                     "learning.learning_starts=50"]),
         "learninggroup": ("learninggroup/predator_prey.toml",
                           ["--steps", "40", "--set", "learning.batch_episodes=1"]),
         "darl": ("darl/cartpole.toml", ["--steps", "120", "--set", "agents=2"])}


@pytest.mark.parametrize("name", sorted(TWICE))
def test_the_same_seed_twice_gives_the_same_report_outside_timing(name, tmp_path):
    """Two runs of each machine with the same seed give identical JSON once the top-level
    ``timing`` key is taken out: every wall-clock and host-measured figure, and every figure
    derived from one, is under it (issue 33)."""
    manifest, options = TWICE[name]
    runs = []
    for i in range(2):
        out = tmp_path / f"{i}.json"
        cmd = [sys.executable, "-m", "rlaccel", "run", str(manifest_path(manifest)), *options,
               "-q", "--seed", "3", "--json", str(out)]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        report = json.loads(out.read_text())
        assert isinstance(report.pop("timing"), dict)
        runs.append(report)
    a, b = flat(runs[0]), flat(runs[1])
    assert a == b, [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)][:10]

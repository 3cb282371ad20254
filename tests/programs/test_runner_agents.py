"""One binary per agent: a plugin's ``Run.agent_defines`` makes the runner assemble the program
once per agent with that agent's defines, hand the binaries to ``bind`` in agent order and
run every agent on its own binary."""

import numpy as np

from rlaccel.programs import runner
from rlaccel.programs.plugin import Plugin, Run

ARCH = """name = "two"
inherit = "adhdp-f64"
[machine]
families = ["base", "marl"]
agents = 3
[interconnect]
kind = "ring"
latency = 2
words_per_cycle = 1
"""

PROGRAM = """.data
Y: .values K, K + 1
ALL: .zero 6
.text
        allgather src=Y, dst=ALL, n=2
        cc.halt
"""


class _Agents(Plugin):
    machine = "agents"
    seen: list = []

    def prepare(self, m, arch):
        return Run(self.program_path(m), {"K": 100},
                   agent_defines=[{"K": 10 * (i + 1)} for i in range(3)])

    def bind(self, m, run, binary, arch):
        _Agents.seen = list(binary)

    def results(self, m, run, res, platform):
        return {"all": [list(platform.symbol_view("ALL", agent=a)) for a in range(3)]}

    def summary(self, report):
        return ""


def test_every_agent_runs_its_own_binary(tmp_path, monkeypatch):
    (tmp_path / "a.toml").write_text(ARCH)
    (tmp_path / "p.s").write_text(PROGRAM)
    (tmp_path / "m.toml").write_text(f'machine = "agents"\narch = "{tmp_path / "a.toml"}"\n'
                                     f'program = "p.s"\n')
    monkeypatch.setattr(runner, "load_plugin", lambda machine, origin="": _Agents())
    report = runner.run(tmp_path / "m.toml")
    assert len(_Agents.seen) == 3
    assert len({b.data for b in _Agents.seen}) == 3          # three different images
    expect = [10.0, 11.0, 20.0, 21.0, 30.0, 31.0]
    assert report["all"] == [expect] * 3
    assert isinstance(report["binary_sha256"], str) and len(report["binary_sha256"]) == 64
    assert np.isfinite(report["cycles"])

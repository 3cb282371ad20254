"""Small machines of the maddpg architecture for the marl family's tests: N learners (arch
variants in a temporary folder), programs assembled per agent, hosts that answer nothing."""

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.tlm.platform import Platform


class NoHost:
    finished = False

    def exchange(self, out):
        return np.zeros(1)


@pytest.fixture
def learners(tmp_path):
    """``build(programs, agents=1, extra="")``: the Platform of ``agents`` learners (maddpg
    with that many agents and any extra architecture lines), each running its program."""
    def build(programs, agents=1, extra="", trace=None):
        path = tmp_path / f"m{agents}.toml"
        path.write_text(f'inherit = "maddpg"\n[machine]\nagents = {agents}\n{extra}')
        arch = load_arch(str(path))
        if isinstance(programs, str):
            programs = [programs] * agents
        bins = [assemble(p, f"agent{i}.s", arch=arch).binary for i, p in enumerate(programs)]
        return Platform(arch, bins, [NoHost() for _ in range(agents)], trace=trace)
    return build


def values(a) -> str:
    """fp32 values as an assembler list."""
    return ", ".join(repr(float(v)) for v in np.asarray(a, np.float32).reshape(-1))


def view(p, name, agent=0) -> np.ndarray:
    return np.array(p.symbol_view(name, agent=agent))

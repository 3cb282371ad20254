"""Verbs that never simulate judge a user's architecture file with the simulator's own
validator (tlm.arch_check); the installed architectures pass it."""

import pytest

from rlaccel.isa.arch import arch_files, load_arch
from rlaccel.util.errors import ArchError
from rlaccel.tlm.arch_check import check_arch, installed
from rlaccel.tlm.platform import Platform


@pytest.mark.parametrize("name", sorted(arch_files()))
def test_every_installed_architecture_passes(name):
    arch = load_arch(name)
    assert installed(arch)
    Platform.check(arch)


def test_a_copy_of_an_installed_file_is_judged(tmp_path):
    p = tmp_path / "a.toml"
    p.write_text(arch_files()["maddpg"].read_text().replace("[learner]", "[learners]"))
    assert not installed(load_arch(p))
    with pytest.raises(ArchError, match=r"a.toml: unknown table\(s\) \[learners\]"):
        check_arch(str(p))
    assert check_arch(None) is None and check_arch("maddpg").name == "maddpg"

"""A machine's RTL blocks are built from that machine's architectures (rtl/params.py): another
machine's architecture, which lacks the tables and knobs the blocks read, is refused by name
on every verb that builds a block, before anything is simulated or converted."""

import pytest

from rlaccel.cli import main
from rlaccel.isa.arch import load_arch
from rlaccel.rtl.params import check_machine
from rlaccel.rtl.errors import RtlError


@pytest.mark.parametrize("argv, machine, family, arch, implements", [
    (["cosim", "lg_vpu", "--arch", "maddpg", "--n", "3"], "learninggroup", "sparse",
     "maddpg", "base, marl"),
    (["cosim", "darl_butterfly", "--arch", "adhdp", "--n", "3"], "darl", "hdc", "adhdp",
     "base"),
    (["rtl", "lint", "darl_encoder", "--arch", "fixar"], "darl", "hdc", "fixar",
     "base, ddpg"),
])
def test_another_machines_architecture_is_refused(argv, machine, family, arch, implements,
                                                  capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rlaccel {argv[0]}: error: ")
    assert err.rstrip().endswith(
        f"archs/{arch}.toml: {machine}'s RTL blocks are built from an architecture that "
        f"implements the ISA family '{family}' ({machine}'s architectures do); '{arch}' "
        f"implements {implements}")


def test_a_machine_without_a_family_takes_any_architecture():
    check_machine(load_arch("fixar"), "adhdp")          # the base family is everyone's
    with pytest.raises(RtlError, match="fixar's RTL blocks"):
        check_machine(load_arch("adhdp"), "fixar")


def test_the_waveform_may_not_overwrite_the_architecture(tmp_path, capsys):
    arch = tmp_path / "a.toml"
    arch.write_text('name = "mine"\ninherit = "darl"\n')
    before = arch.read_bytes()
    assert main(["cosim", "darl_butterfly", "--arch", str(arch), "--vcd", str(arch),
                 "--n", "2"]) == 1
    assert capsys.readouterr().err.strip() == (
        f"rlaccel cosim: error: {arch}: --vcd would overwrite the architecture file; choose "
        f"another file")
    assert arch.read_bytes() == before

"""Architecture variants: knobs changed on an architecture go through the architecture
file's own validation; a key the base does not have is an error naming the known keys."""

from pathlib import Path

import pytest

from rlaccel.cli import main
from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import ArchError
from rlaccel.programs.arch_variant import arch_variant, parse_arch_sets
from rlaccel.programs.runner import configure, run
from rlaccel.isa.machine import machine

CARTPOLE = machine("adhdp").programs / "cartpole.toml"


def test_a_variant_changes_only_its_keys():
    a = load_arch(arch_variant("adhdp", {"machine.dtype": "q6.12", "timing.branch_penalty": 3}))
    base = load_arch("adhdp")
    assert a.name == "adhdp[machine.dtype=q6.12,timing.branch_penalty=3]"
    assert a.knobs.dtype == "q6.12" and a.geometry.word_bits == 18
    assert a.extra["timing"]["branch_penalty"] == 3
    assert a.extra["timing"]["pipeline_depth"] == base.extra["timing"]["pipeline_depth"]
    assert a.knobs.lanes == base.knobs.lanes and a.extra["technology"] == base.extra["technology"]


def test_equal_variants_share_one_file_and_no_overrides_is_the_base():
    one = arch_variant("adhdp", {"machine.lanes": 8})
    assert arch_variant("adhdp", {"machine.lanes": 8}) == one
    assert arch_variant("adhdp", {"machine.lanes": 16}) != one
    assert arch_variant("adhdp", {}) == "adhdp"


def test_a_variant_of_an_architecture_given_by_path(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('name = "mine"\ninherit = "adhdp"\n[machine]\nlanes = 2\n')
    a = load_arch(arch_variant(str(f), {"machine.cores": 3}))
    assert (a.name, a.knobs.lanes, a.knobs.cores) == ("mine[machine.cores=3]", 2, 3)


@pytest.mark.parametrize("overrides, message", [
    ({"machine.dtyp": "q6.12"}, r"architecture override 'machine.dtyp': 'adhdp' has no "
                                r"\[machine\] key 'dtyp' \(did you mean 'machine.dtype'\?\)"),
    ({"timing.foo": 1}, r"'adhdp' has no \[timing\] key 'foo'; known: pipeline_depth, "
                        r"branch_penalty, scalar_latency"),
    ({"timng.branch_penalty": 1}, r"'adhdp' has no \[timng\] table \(did you mean 'timing'\?\)"),
    ({"lanes": 4}, r"architecture override 'lanes': expected TABLE.KEY"),
    ({"machine.lanes": 0}, r"^architecture adhdp\[machine.lanes=0\]: \[machine\] lanes must be "
                           r"at least 1, not 0$"),
    ({"machine.dtype": "q6.40"}, r"invalid number format 'q6.40'"),
    ({"machine.clock_mhz": float("nan")}, r"'machine.clock_mhz': nan is not a finite number"),
])
def test_bad_overrides_are_clear_errors(overrides, message):
    with pytest.raises(ArchError, match=message):
        arch_variant("adhdp", overrides)


def test_parse_arch_sets():
    assert parse_arch_sets(["machine.dtype=q6.12", "machine.lanes=8",
                            'machine.families=["base"]']) == {
        "machine.dtype": "q6.12", "machine.lanes": 8, "machine.families": ["base"]}
    with pytest.raises(ArchError, match="expected TABLE.KEY=VALUE"):
        parse_arch_sets(["machine.lanes"])


def test_the_runner_runs_a_variant():
    _, m = configure(CARTPOLE, arch_overrides={"machine.dtype": "q6.10"})
    assert load_arch(m["arch"]).knobs.dtype == "q6.10"
    r = run(CARTPOLE, ["stop_on_success=false", "max_steps=20"], trials=1,
            arch_overrides={"machine.dtype": "q6.10"})
    assert r["arch"] == "adhdp[machine.dtype=q6.10]"
    assert len(r["binary_sha256"]) == 64


def test_run_arch_set_on_the_command_line(capsys):
    assert main(["run", str(CARTPOLE), "--trials", "1", "-q", "--set", "max_steps=10",
                 "--arch-set", "machine.dtype=q6.10"]) == 0
    assert "on adhdp[machine.dtype=q6.10]" in capsys.readouterr().out
    assert main(["run", str(CARTPOLE), "--trials", "1", "--arch-set", "machine.lane=2"]) == 1
    assert "did you mean 'machine.lanes'" in capsys.readouterr().err

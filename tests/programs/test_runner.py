"""One runner for every manifest: the machine picks the plug-in, the command line's options go
to the machine that takes them, a machine that does not exist is a clear error."""

from pathlib import Path

import pytest

from rlaccel.cli import main
from rlaccel.util.errors import RlaccelError
from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.plugin import load_plugin, plugin_machines
from rlaccel.programs.runner import configure, run
from rlaccel.isa.machine import machine

ROOT = machine("adhdp").programs


def test_the_machine_picks_the_plugin():
    plugin, m = configure(ROOT / "cartpole.toml", trials=3)
    assert plugin.machine == "adhdp" and m["trials"] == 3
    assert "adhdp" in plugin_machines()


def test_a_machine_that_does_not_exist(tmp_path):
    m = tmp_path / "m.toml"
    m.write_text('machine = "tpu"\narch = "adhdp"\nprogram = "x.s"\n')
    with pytest.raises(RlaccelError, match=r"m.toml: machine 'tpu' is not known; machines: "
                                           r"adhdp, darl, fixar, learninggroup, maddpg"):
        run(m)
    m.write_text('arch = "adhdp"\n')
    with pytest.raises(ManifestError, match="missing 'machine'"):
        run(m)
    m.write_text('family = "adhdp"\narch = "adhdp"\n')
    with pytest.raises(ManifestError, match="the key 'family' is now called 'machine'"):
        run(m)


def test_an_option_the_machine_does_not_take():
    with pytest.raises(ManifestError, match=r"--steps: the adhdp machine does not take it "
                                            r"\(its options: --trials\)"):
        configure(ROOT / "cartpole.toml", steps=10)


def test_values_are_range_checked():
    with pytest.raises(ManifestError, match=r"'learning.lr_every' must be from 1 to 1,099,511,627,776, not 0"):
        configure(ROOT / "cartpole.toml", ["learning.lr_every=0"])
    with pytest.raises(ManifestError, match=r"'learning.gamma' must be a finite number, "
                                            r"not nan"):
        configure(ROOT / "cartpole.toml", ["learning.gamma=nan"])


def test_chip_constants_the_manifest_leaves_out_keep_the_programs_defaults(tmp_path):
    """The chip-side defaults live once, in the program's .default lines."""
    from rlaccel.machines.adhdp.plugin import defines
    text = (ROOT / "cartpole.toml").read_text().replace("Ic = 50", "")
    (tmp_path / "m.toml").write_text(text.replace('"cartpole', f'"{ROOT}/cartpole'))
    _, m = configure(tmp_path / "m.toml")
    assert m["learning"]["Ic"] is None and "IC" not in defines(m)
    assert load_plugin("adhdp").machine == "adhdp"


def test_report_lists_the_machines(capsys):
    assert main(["report"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("machines with reports")
    assert "adhdp" in out


def test_run_summary_and_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["run", str(ROOT / "cartpole.toml"), "--trials", "2", "-q", "--json",
                 str(out)]) == 0
    said = capsys.readouterr().out
    assert "learning: 2 trials" in said and out.exists()

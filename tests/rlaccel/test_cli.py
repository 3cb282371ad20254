"""The command line: verbs, exit statuses (0 ok, 1 user error, 2 usage), messages."""

import re
from pathlib import Path

import pytest

import rlaccel
from rlaccel.assembler.rlb import read
from rlaccel.cli import build_parser, main
from rlaccel.isa.machine import machine

ROOT = Path(__file__).parents[2]
CARTPOLE = machine("adhdp").programs / "cartpole.s"


def test_asm_dis_round_trip(tmp_path, capsys):
    out = tmp_path / "c.rlb"
    assert main(["asm", str(CARTPOLE), "-o", str(out), "--listing", str(tmp_path / "c.lst")]) == 0
    said = capsys.readouterr().out
    assert re.search(r"35 instructions x 51 bits = 224 of 240 instruction-memory bytes "
                     r"\(35/37 slots\) on adhdp", said)
    assert "cc.host" in (tmp_path / "c.lst").read_text()
    assert main(["dis", str(out), "-o", str(tmp_path / "d.s")]) == 0
    assert main(["asm", str(tmp_path / "d.s"), "-o", str(tmp_path / "d.rlb")]) == 0
    a, b = read(out), read(tmp_path / "d.rlb")
    assert (a.text, a.data, a.synapse, a.symbols) == (b.text, b.data, b.synapse, b.symbols)


def test_define_flag(tmp_path):
    assert main(["asm", str(CARTPOLE), "-o", str(tmp_path / "a.rlb"), "-D", "SEED=5"]) == 0
    assert read(tmp_path / "a.rlb").source["defines"] == {"SEED": 5}


def test_user_error_exit_1(tmp_path, capsys):
    bad = tmp_path / "bad.s"
    bad.write_text(".arch adhdp\n.text\nff src=0\n")
    assert main(["asm", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rlaccel asm: error: {bad}:3:1: ff needs operand 'syn'")
    assert "Traceback" not in err
    assert not (tmp_path / "bad.rlb").exists()


def test_corrupt_binary_exit_1(tmp_path, capsys):
    f = tmp_path / "x.rlb"
    f.write_bytes(b"\x7fRLB garbage")
    assert main(["dis", str(f)]) == 1
    assert "rlaccel dis: error:" in capsys.readouterr().err


def test_usage_error_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["asm"])
    assert info.value.code == 2


@pytest.mark.parametrize("verb", ["asm", "dis", "isa"])
def test_help(verb, capsys):
    with pytest.raises(SystemExit) as info:
        main([verb, "--help"])
    assert info.value.code == 0 and "usage: rlaccel" in capsys.readouterr().out


def test_isa_markdown_lists_every_mnemonic(capsys):
    from rlaccel.isa.table import TABLE
    assert main(["isa", "--markdown", "--arch", "fixar"]) == 0
    text = capsys.readouterr().out
    for mn in TABLE:
        assert f"| `{mn}` |" in text
    assert "- **DFF**: `op` [3:0]" in text          # the ddpg family's forward format
    from rlaccel.isa.table import FAMILIES
    from rlaccel.tlm.families import implemented
    assert ("encoding only" in text) == bool(set(FAMILIES) - implemented())


def test_readme_lists_the_verbs():
    """The README's table of CLI verbs is the parser's list of verbs."""
    readme = (ROOT / "README.md").read_text()
    table = re.findall(r"^\| `rlaccel (\w+)", readme, re.M)
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert sorted(table) == sorted(sub.choices)


def test_public_facade():
    for name in rlaccel.__all__:
        assert hasattr(rlaccel, name)


def _verbs(parser) -> dict:
    sub = next(a for a in parser._actions if a.dest == "command")
    return {a.dest: a.help for a in sub._choices_actions}


def test_a_verb_not_named_is_listed_with_its_own_help():
    """Only the verb on the command line is built in full; the others are listed with the help
    their parser gives (read from its source), in the same order."""
    full = _verbs(build_parser())
    assert _verbs(build_parser([])) == full
    assert _verbs(build_parser(["isa", "--arch", "adhdp"])) == full
    for verb in ("rtl", "cosim"):                 # one module adds both
        assert _verbs(build_parser([verb, "--help"])) == full


def test_help_imports_no_simulator():
    """``rlaccel --help`` loads neither numpy nor the simulator (the CLI imports what a verb
    needs when the verb runs)."""
    import subprocess
    import sys
    code = ("import sys\nfrom rlaccel.cli import main\ntry:\n    main(['--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'numba', "
            "'simpy') or m.startswith(('rlaccel.tlm', 'rlaccel.assembler', 'rlaccel.sweep'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.splitlines()[-1] == "[]"

"""Issue 33's cases, each with its exact message: a file read without reserving its limit
(under ``ulimit -v``), memory estimated before a knob's allocation, a ``MemoryError`` as one
paragraph, outputs checked against every file a verb reads or a manifest names (hard links
and modes kept), the same knob rules for ``run`` and ``dse``, a reused report of another
shape. Each refusal leaves the files as they were."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from rlaccel.isa.machine import machine

from tests.adversarial.conftest import ADHDP, Case, adhdp_files

MADDPG = machine("maddpg").programs
FIXAR = machine("fixar").programs
E = "rlaccel {}: error: "


def maddpg_files() -> dict:
    files = {n: (MADDPG / n).read_text() for n in ("learner.s", "layout.inc")}
    files["m.toml"] = (MADDPG / "speaker_listener.toml").read_text()
    return files


def _set(files: dict, old: str, new: str) -> dict:
    assert old in files["m.toml"]
    return {**files, "m.toml": files["m.toml"].replace(old, new)}


CASES = [
    # outputs onto files the manifest names (read by this run or not)
    Case("run-json-onto-the-unused-program", ("run", "m.toml", "-q", "--json", "cartpole_vu.s"),
         1, E.format("run") + "cartpole_vu.s: --json would overwrite the program (program_vu); "
                              "choose another file", adhdp_files()),
    Case("run-trace-onto-an-include-of-the-unused-program",
         ("run", "m.toml", "-q", "--trace", "fig7.inc"), 1,
         E.format("run") + "fig7.inc: --trace would overwrite the include file; choose another "
                           "file", adhdp_files()),
    Case("run-seeds-json-onto-the-unused-program",
         ("run", "m.toml", "-q", "--seeds", "1-2", "--json", "cartpole_vu.s"), 1,
         E.format("run") + "cartpole_vu.s: --json would overwrite the program (program_vu); "
                           "choose another file", adhdp_files()),
    Case("dse-json-onto-the-program", ("dse", "maddpg", "--manifest", "m.toml", "--json",
                                       "learner.s"), 1,
         E.format("dse") + "learner.s: --json would overwrite the program; choose another file",
         maddpg_files()),
    Case("dse-json-onto-an-include", ("dse", "maddpg", "--manifest", "m.toml", "--json",
                                      "layout.inc"), 1,
         E.format("dse") + "layout.inc: --json would overwrite the include file; choose another "
                           "file", maddpg_files()),
    Case("report-o-onto-the-manifest", ("report", "fixar", "-o", "rep", "--manifest",
                                        "rep/report.md"), 1,
         E.format("report") + "rep/report.md: -o rep would overwrite the manifest (the directory "
                              "gets report.md, report.json, *.png, *.svg); choose another -o or "
                              "move it",
         {"rep/report.md": (FIXAR / "pendulum.toml").read_text()}),
    # the same knob rules for run and dse
    Case("maddpg-adam-beta2-beyond-one", ("run", "m.toml", "-q"), 1,
         E.format("run") + "m.toml: 'learning.adam_beta2' must be from 0 to 1, not 1.5",
         _set(maddpg_files(), "[learning]", "[learning]\nadam_beta2 = 1.5")),
    Case("dse-adam-beta2-beyond-one", ("dse", "maddpg", "--manifest", "m.toml"), 1,
         E.format("dse") + "m.toml: 'learning.adam_beta2' must be from 0 to 1, not 1.5",
         _set(maddpg_files(), "[learning]", "[learning]\nadam_beta2 = 1.5")),
    Case("dse-batch-of-10**12", ("dse", "maddpg", "--manifest", "m.toml", "--set",
                                 f"learning.batch={10 ** 12}"), 1,
         E.format("dse") + "m.toml: 'learning.batch' must be from 1 to 1,048,576, not "
                           "1000000000000", maddpg_files()),
    Case("maddpg-hidden-100000", ("run", "m.toml", "-q", "--set",
                                  "learning.hidden=[100000, 100000]"), 1,
         E.format("run") + "m.toml: 'learning.hidden' must be a list of 2 integers from 1 to "
                           "65,536, not [100000, 100000] (the learner program, learner.s, has "
                           "two hidden layers)", maddpg_files()),
    Case("dse-f-beyond-the-device", ("dse", "maddpg", "--manifest", "m.toml", "--set",
                                     "dse.f=1000000"), 1,
         E.format("dse") + "m.toml: 'dse.f' = 1000000: the design does not fit u200 (SLR0 needs "
                           "10,228,485 DSPs and 1,022,848.5 BRAMs but has 2,280 and 720; SLR1 "
                           "needs 10,239,365 DSPs and 1,023,936.5 BRAMs but has 2,280 and 720); "
                           "the DSE's own base factor 4 fits, and so does any smaller one",
         maddpg_files()),
    # a reused report of another shape
    Case("darl-reuse-not-json", ("report", "darl", "-o", "r", "--reuse", "--learning"), 1,
         E.format("report") + "--reuse: r/report.json: not a report.json of rlaccel report darl "
                              "(Expecting value: line 2 column 1 (char 6)); run the report "
                              "without --reuse", {"r/report.json": '{"a":\n'}),
    Case("darl-reuse-of-another-shape", ("report", "darl", "-o", "r", "--reuse",
                                         "--learning"), 1,
         E.format("report") + "--reuse: r/report.json: not a report.json of rlaccel report darl "
                              "(no key 'table1'); run the report without --reuse",
         {"r/report.json": '{"args": {"stages": 1}}'}),
    Case("darl-learning-run-of-another-shape", ("report", "darl", "-o", "r", "--learning",
                                                "l.json"), 1,
         E.format("report") + "l.json: --learning: run 0 is not a run of "
                              "machines/darl/bench/learning.py (no key 'task')",
         {"l.json": '{"runs": [{"agents": 1}]}'}),
]


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_refused_with_its_message_and_nothing_changes(case, check, tmp_path):
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    check(case)
    for p, blob in before.items():
        assert p.read_bytes() == blob, p


def test_dis_under_an_address_space_limit(tmp_path):
    """Every rlaccel dis died under ulimit -v 3000000: the .rlb reader reserved its 4 GiB
    limit. Under the limit it disassembles."""
    rlb = tmp_path / "c.rlb"
    done = subprocess.run([sys.executable, "-m", "rlaccel", "asm", str(ADHDP / "cartpole.s"),
                           "-o", str(rlb)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (3_000_000 << 10, 3_000_000 << 10))\n"
            "from rlaccel.cli import main\n"
            f"sys.exit(main(['dis', {str(rlb)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("; disassembled by rlaccel") and "\n.arch " in done.stdout


def test_memory_error_is_one_paragraph(cli, monkeypatch):
    """A MemoryError no estimate caught (here: the simulator's) is exit 1 and one paragraph
    that says what to do, never a traceback."""
    import resource

    from rlaccel import cli as cli_module
    from rlaccel.util import memory

    def boom(args):
        raise MemoryError("Unable to allocate 286. MiB for an array with shape (37541799,) "
                          "and data type int64")
    monkeypatch.setattr(cli_module, "cmd_isa", boom)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (3_000_000 << 10, -1))
    monkeypatch.setattr(memory, "available_bytes", lambda: 1 << 30)
    parser = cli_module.build_parser
    monkeypatch.setattr(cli_module, "build_parser", lambda argv=None: _with(parser(argv), "isa", boom))
    status, out, err = cli(["isa"])
    assert (status, err) == (1, "rlaccel isa: error: out of memory (unable to allocate 286. MiB "
                                "for an array with shape (37541799,) and data type int64): the "
                                "command needs more than the address-space limit of 2.9 GiB "
                                "(ulimit -v); make the sizes it was given smaller (network "
                                "widths, buffers, batches, transactions, sweep axes) or allow it "
                                "more memory\n")


def _with(parser, verb: str, func):
    for action in parser._subparsers._group_actions:
        action.choices[verb].set_defaults(func=func)
    return parser


@pytest.mark.parametrize("argv, message", [
    (["run", "m.toml", "-q", "--set", "learning.buffer=4000000000"],
     "m.toml: 'learning.buffer' = 4000000000: the replay buffer would take 74.5 GiB of memory, "
     "more than the 2.0 GiB this process can still use; make it smaller"),
    (["run", "m.toml", "-q", "--set", "learning.hidden=[60000,60000]"],
     "m.toml: 'learning.hidden' = [60000, 60000]: the networks, their targets and optimiser "
     "state would take 429 GiB of memory, more than the 2.0 GiB this process can still use; "
     "make it smaller"),
])
def test_memory_is_estimated_before_the_allocation(cli, monkeypatch, argv, message):
    """A knob that asks for more memory than the process has is refused by name, before
    anything is allocated (the FIXAR manifest; 2 GiB left)."""
    from rlaccel.util import memory
    monkeypatch.setattr(memory, "available_bytes", lambda: 2 << 30)
    status, out, err = cli(argv, {"m.toml": (FIXAR / "pendulum.toml").read_text()})
    assert (status, err) == (1, f"rlaccel run: error: {message}\n")


def test_asm_output_keeps_hard_links_and_mode(cli):
    """asm -o onto a file with two names: both see the new binary, one inode, its mode."""
    status, _, err = cli(["asm", "s.s", "-o", "o.rlb"], {"s.s": ".arch adhdp\n.text\ncc.halt\n",
                                                         "o.rlb": "old"})
    assert status == 0, err
    os.chmod("o.rlb", 0o640)
    os.link("o.rlb", "h.rlb")
    ino = os.stat("o.rlb").st_ino
    status, _, err = cli(["asm", "s.s", "-o", "o.rlb", "-D", "X=1"])
    assert status == 0, err
    st = os.stat("h.rlb")
    assert (st.st_ino, st.st_nlink, stat.S_IMODE(st.st_mode)) == (ino, 2, 0o640)
    with open("o.rlb", "rb") as a, open("h.rlb", "rb") as b:
        assert a.read() == b.read()

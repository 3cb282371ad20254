"""A hostile user over every verb: count the cases and their outcomes per verb.

    python bench/hostile.py [--only VERB ...] [--limit S] [--json FILE] [-v]

Each case runs ``rlaccel ARGV`` in this process (``rlaccel.cli.main``) in a new temporary
directory holding the case's files, under a time limit, and is judged:

* ``refused``   -- exit 1 with one ``rlaccel VERB: error: ...`` message, or exit 2 with the
  usage line and ``error: ...``;
* ``accepted``  -- exit 0;
* ``traceback`` -- an exception other than SystemExit left ``main``;
* ``hang``      -- the time limit passed;
* ``silent``    -- a non-zero exit without a message;
* ``damaged``   -- one of the case's own files changed or vanished, or a file appeared that
  is not one of the case's declared outputs.

A case expects ``refuse``, ``accept`` or ``either`` (a value the verb may take); a case whose
outcome is not what it expects is listed as a problem. The cases are generated, seeded (no
random choice is unseeded): wrong types, nan/inf, negative and huge values, missing and
unknown keys, wrong environment ids, outputs onto inputs, unwritable outputs and device files
(a symbolic link to /dev/null: nothing is written to /dev), for the assembler, the
disassembler, the ISA summary, every machine's manifest (``run``, ``--set``, ``--arch-set``,
``--seeds``), ``report``, ``cosim``, ``rtl verilog|lint|synth|speed``, ``sweep`` and ``dse``.
Runs that a case lets through use each machine's smallest configuration (a few steps).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from rlaccel.isa.arch import arch_names
from rlaccel.isa.machine import machines

ROOT = Path(__file__).resolve().parents[1]
P = {name: m.programs for name, m in machines().items()}
ARCHS = machines()["adhdp"].archs

#: each machine's manifest and the settings that make its run a few steps long
TINY = {
    "adhdp": (P["adhdp"] / "cartpole.toml", {"trials": "1", "max_steps": "20"}),
    "fixar": (P["fixar"] / "pendulum.toml",
              {"steps": "24", "learning.batch": "4", "learning.start_steps": "8",
               "learning.hidden": "[8, 8]", "learning.eval_every": "1000000",
               "learning.buffer": "64"}),
    "darl": (P["darl"] / "cartpole.toml",
             {"stages": "1", "learning.d": "64", "learning.batch": "2"}),
    "maddpg": (P["maddpg"] / "speaker_listener.toml",
               {"episodes": "1", "learning.batch": "8", "learning.update_every": "10",
                "learning.hidden": "[8, 8]", "learning.max_episode_len": "5", "window": "1",
                "learning.buffer": "64"}),
    "learninggroup": (P["learninggroup"] / "predator_prey.toml",
                      {"iterations": "1", "environment_kwargs.max_steps": "5",
                       "network.hid": "8", "learning.batch_episodes": "1"}),
}

#: values a hostile user puts in place of a number (TOML text)
BAD_VALUES = ['"x"', "nan", "inf", "-inf", "-1", "0", "1e30", str(1 << 70), "true", "[1, 2]",
              "{a = 1}", "-9223372036854775809", "0.5"]


@dataclass
class Case:
    verb: str
    name: str
    argv: list[str]
    files: dict = field(default_factory=dict)      # name -> str | bytes | ("link", target)
    expect: str = "refuse"                           # refuse | accept | either
    outputs: tuple = ()                              # files the verb may create


@dataclass
class Outcome:
    case: Case
    kind: str
    status: object
    message: str
    seconds: float

    @property
    def ok(self) -> bool:
        if self.kind in ("traceback", "hang", "silent", "damaged"):
            return False
        return self.case.expect == "either" or \
            {"refuse": "refused", "accept": "accepted"}[self.case.expect] == self.kind


# ------------------------------------------------------------------------------ running

class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _snapshot(d: Path) -> dict:
    out = {}
    for p in sorted(d.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(d))] = ("link", os.readlink(p))
        elif p.is_file():
            out[str(p.relative_to(d))] = hashlib.sha256(p.read_bytes()).hexdigest()
        elif p.is_dir():
            out[str(p.relative_to(d))] = "dir"
    return out


def run_case(case: Case, limit: float) -> Outcome:
    from rlaccel.cli import main
    d = Path(tempfile.mkdtemp(prefix="hostile-"))
    for name, content in case.files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple) and content[0] == "link":
            p.symlink_to(content[1])
        elif isinstance(content, tuple) and content[0] == "fifo":
            os.mkfifo(p)
        elif isinstance(content, tuple) and content[0] == "dir":
            p.mkdir(exist_ok=True)
        else:
            p.write_bytes(content.encode() if isinstance(content, str) else content)
    before = _snapshot(d)
    cwd = os.getcwd()
    os.chdir(d)
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.perf_counter()
    kind = None
    status: object = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(case.argv))
            except SystemExit as e:
                status = e.code
    except _Timeout:
        kind = "hang"
    except BaseException as e:              # noqa: BLE001 - what a hostile case looks for
        import traceback
        kind = "traceback"
        err.write("".join(traceback.format_exception(e)))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        os.chdir(cwd)
    seconds = time.perf_counter() - t0
    text = err.getvalue().rstrip("\n")
    last = text.splitlines()[-1] if text else ""
    if kind is None:
        if status == 0:
            kind = "accepted"
        elif status == 1 and "Traceback" not in text and (first := next(
                (ln for ln in text.splitlines()
                 if re.match(r"^rlaccel [\w ]+: error: \S", ln)), None)):
            kind, last = "refused", first     # (an assembler message goes on: line, caret)
        elif status == 1 and text and "Traceback" not in text and case.verb in ("cosim",):
            kind = "refused"               # a cosim mismatch report: exit 1, its own lines
        elif status == 2 and text.startswith("usage: rlaccel") and ": error: " in last:
            kind = "refused"
        elif not text:
            kind = "silent"
        else:
            kind = "traceback" if "Traceback" in text else "silent"
    after = _snapshot(d)
    for name, h in before.items():
        if after.get(name) != h and name not in case.outputs:
            kind, last = "damaged", f"{name} changed or vanished; " + last
    allowed = set(case.outputs)
    extra = [n for n in after if n not in before and n not in allowed
             and not any(n.startswith(o.rstrip("/") + "/") for o in allowed)
             and ".rescued-" not in n]
    if extra and kind != "hang":
        kind, last = "damaged", f"unexpected files {extra[:3]}; " + last
    import shutil
    shutil.rmtree(d, ignore_errors=True)
    return Outcome(case, kind, status, last if kind != "traceback" else text[-600:], seconds)


# ------------------------------------------------------------------------------ cases

def _text(p: Path) -> str:
    return p.read_text()


def _manifest(family: str, edit=None) -> str:
    """The family's manifest with absolute program paths, the tiny settings written in, and
    ``edit(text) -> text`` applied."""
    path, tiny = TINY[family]
    text = _text(path)
    for key in ("program", "program_vu", "program_dense"):
        text = re.sub(rf'^{key} = "([^"]+)"', lambda m: f'{key} = "{path.parent / m.group(1)}"',
                      text, flags=re.M)
    text = _set_keys(text, tiny)
    return edit(text) if edit else text


def _set_keys(text: str, values: dict) -> str:
    """Set dotted keys (``table.key``) in a manifest's text (a key line is replaced; a table
    or key that is missing is added)."""
    for dotted, v in values.items():
        table, _, key = dotted.rpartition(".")
        lines = text.split("\n")
        start = 0 if not table else next((i + 1 for i, ln in enumerate(lines)
                                          if _header(ln) == table), None)
        if start is None:
            lines += [f"[{table}]", f"{key} = {v}"]
            text = "\n".join(lines)
            continue
        end = next((i for i in range(start, len(lines)) if lines[i].startswith("[")),
                   len(lines))
        for i in range(start, end):
            if re.match(rf"^{re.escape(key)}\s*=", lines[i]):
                lines[i] = f"{key} = {v}"
                break
        else:
            lines.insert(start if table else 0, f"{key} = {v}")
        text = "\n".join(lines)
    return text


def _header(line: str) -> str | None:
    """The table a ``[table]`` line opens (a comment may follow)."""
    m = re.match(r"^\[([^\[\]]+)\]\s*(#.*)?$", line.strip())
    return m.group(1).strip() if m else None


def _delete_key(text: str, dotted: str) -> str:
    table, _, key = dotted.rpartition(".")
    lines, cur = text.split("\n"), ""
    for i, ln in enumerate(lines):
        if ln.startswith("["):
            cur = _header(ln)
        elif cur == table and re.match(rf"^{re.escape(key)}\s*=", ln):
            del lines[i]
            break
    return "\n".join(lines)


def _keys(family: str) -> list[tuple[str, object]]:
    import tomllib
    t = tomllib.loads(_text(TINY[family][0]))
    out = []
    for k, v in t.items():
        if isinstance(v, dict):
            out += [(f"{k}.{kk}", vv) for kk, vv in v.items() if not isinstance(vv, dict)]
        else:
            out.append((k, v))
    return out


def run_cases() -> list[Case]:
    cases = []
    for fam in TINY:
        base = {"m.toml": _manifest(fam)}
        cases.append(Case("run", f"{fam}-tiny", ["run", "m.toml", "-q"], base, "accept"))
        for key, value in _keys(fam):
            if key in ("family",):
                continue
            for v in BAD_VALUES:
                if isinstance(value, str) and v == '"x"':
                    continue
                files = {"m.toml": _manifest(fam, lambda t, k=key, v=v: _set_keys(t, {k: v}))}
                cases.append(Case("run", f"{fam}-{key}={v}", ["run", "m.toml", "-q"], files,
                                  "either"))
            if key not in TINY[fam][1]:
                files = {"m.toml": _manifest(fam, lambda t, k=key: _delete_key(t, k))}
                cases.append(Case("run", f"{fam}-no-{key}", ["run", "m.toml", "-q"], files,
                                  "either"))
        cases.append(Case("run", f"{fam}-unknown-key",
                          ["run", "m.toml", "-q"],
                          {"m.toml": _manifest(fam, lambda t: "bogus_key = 1\n" + t)}))
        cases.append(Case("run", f"{fam}-unknown-table", ["run", "m.toml", "-q"],
                          {"m.toml": _manifest(fam) + "\n[bogus]\nx = 1\n"}))
        for env in ('"NoSuchEnv-v0"', '"CartPole-v1"', '"Pendulum-v1"', '""', '"rlaccel/X-v0"',
                    '"gymnasium.envs:Nope"'):
            for k in ("environment", "task"):
                if k in dict(_keys(fam)):
                    cases.append(Case("run", f"{fam}-{k}={env}", ["run", "m.toml", "-q"],
                                      {"m.toml": _manifest(fam, lambda t, k=k, e=env:
                                                           _set_keys(t, {k: e}))}, "either"))
        # --set, --arch-set, --seeds, --seed, --steps, --trials
        for s in ("learning", "nope=1", "=1", "seed=", "seed=-1", "seed=nan", "family=darl",
                  "arch=adhdp", "arch=../../etc/passwd", "program=/dev/zero",
                  "program=/nonexistent.s", "learning.batch=0", "learning.batch=1e999",
                  "x.y.z=1", "learning=1"):
            cases.append(Case("run", f"{fam}--set {s}", ["run", "m.toml", "-q", "--set", s],
                              base, "either"))
        for s in ("machine.lanes=0", "machine.lanes=-4", "machine.dtype=q99.99",
                  "machine.clock_mhz=nan", "timing.bogus=1", "hostlink.latency=-1",
                  "nosuch.key=1", "machine", "machine.lanes=1e999", "energy.clock=inf",
                  "machine.agents=100000", "interconnect.kind=star"):
            cases.append(Case("run", f"{fam}--arch-set {s}",
                              ["run", "m.toml", "-q", "--arch-set", s], base, "either"))
        for s in ("", "0", "-1", "1-0", "1-100000", "a", "1,,2", "1-2-3", str(1 << 70),
                  "3,3"):
            cases.append(Case("run", f"{fam}--seeds {s!r}",
                              ["run", "m.toml", "-q", "--seeds", s], base, "either"))
        for flag, v in (("--seed", "-1"), ("--seed", str(1 << 64)), ("--steps", "-5"),
                        ("--trials", "0"), ("--steps", str(1 << 70)), ("--arch", "nosuch"),
                        ("--arch", "/dev/null"), ("--arch", "m.toml"), ("--rtl", "nope"),
                        ("--checkpoint-every", "0")):
            cases.append(Case("run", f"{fam}{flag} {v}", ["run", "m.toml", "-q", flag, v],
                              base, "either"))
        # outputs onto inputs, unwritable and device outputs
        for flag in ("--json", "--trace", "--checkpoint"):
            for target, files, name in (
                    ("m.toml", {}, "onto the manifest"),
                    ("null", {"null": ("link", "/dev/null")}, "a device"),
                    ("fifo", {"fifo": ("fifo",)}, "a FIFO"),
                    ("d", {"d": ("dir",)}, "a directory"),
                    ("no/such/dir/f", {}, "a missing directory"),
                    ("", {}, "an empty name")):
                cases.append(Case("run", f"{fam}{flag} {name}",
                                  ["run", "m.toml", "-q", flag, target], {**base, **files}))
    return cases


ASM_OK = ".arch adhdp\n.text\ncc.halt\n"


def asm_cases() -> list[Case]:
    cases = []
    srcs = {
        "empty": "", "comments": "; nothing\n# nor this\n", "binary": bytes(range(256)) * 4,
        "latin1": "; caf\xe9\n".encode("latin-1"), "huge-int": f".data\nx: .word {1 << 200}\n",
        "deep-paren": "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
        "many-minus": ".equ A, " + "-" * 5000 + "1\n", "sum": ".equ A, " + "+".join(["1"] * 5000),
        "equ-square": "".join(f".equ A{i + 1}, A{i} * A{i}\n" for i in range(40)).replace(
            ".equ A1, A0 * A0", ".equ A0, 99999\n.equ A1, A0 * A0"),
        "nul": "cc.halt\x00\n", "unknown-mnemonic": ".text\nfoo r1\n",
        "arch-path": '.arch "/etc/passwd"\n', "arch-dev": '.arch "/dev/zero"\n',
        "include-self": '.include "s.s"\n', "include-dev": '.include "/dev/zero"\n',
        "include-dir": '.include "."\n', "float-nan": ".data\nx: .values nan\n",
        "rand-huge": f".data\nx: .rand 4, 0, {1 << 80}\n", "ok": ASM_OK,
        "label-as-data": ".arch adhdp\n.text\nL: cc.halt\n.data\nx: .word L\n",
        "bom": "\ufeff" + ASM_OK, "long-line": "; " + "x" * 2_000_000 + "\n",
        "crlf": ASM_OK.replace("\n", "\r\n"), "tab-name": ".equ \t, 1\n",
    }
    for name, text in srcs.items():
        cases.append(Case("asm", name, ["asm", "s.s", "-o", "o.rlb"], {"s.s": text}, "either",
                          ("o.rlb",)))
    for argv, files, name in (
            (["asm", "s.s", "-o", "s.s"], {"s.s": ASM_OK}, "-o onto the source"),
            (["asm", "s.s", "--listing", "s.s"], {"s.s": ASM_OK}, "listing onto the source"),
            (["asm", "s.rlb"], {"s.rlb": ASM_OK}, "a source named .rlb"),
            (["asm", "s.s", "-o", "x", "--listing", "x"], {"s.s": ASM_OK}, "-o = --listing"),
            (["asm", "s.s", "-o", "null"], {"s.s": ASM_OK, "null": ("link", "/dev/null")},
             "-o a device"),
            (["asm", "s.s", "-o", "d"], {"s.s": ASM_OK, "d": ("dir",)}, "-o a directory"),
            (["asm", "s.s", "-o", "no/dir/o.rlb"], {"s.s": ASM_OK}, "-o a missing dir"),
            (["asm", "/dev/zero"], {}, "a device source"),
            (["asm", "f"], {"f": ("fifo",)}, "a FIFO source"),
            (["asm", ""], {}, "an empty name"), (["asm", "."], {}, "a directory source"),
            (["asm", "s.s", "-D", "A=1e999"], {"s.s": ASM_OK}, "-D inf"),
            (["asm", "s.s", "-D", f"A={1 << 80}"], {"s.s": ASM_OK}, "-D huge"),
            (["asm", "s.s", "-D", "A"], {"s.s": ASM_OK}, "-D no value"),
            (["asm", "s.s", "-D", "cc.halt=1"], {"s.s": ASM_OK}, "-D a mnemonic"),
            (["asm", "s.s", "-I", "/nonexistent"], {"s.s": ASM_OK}, "-I missing"),
            (["asm", "s.s", "--arch", "nosuch"], {"s.s": ASM_OK}, "--arch unknown"),
            (["asm", "s.s", "--arch", "/dev/null"], {"s.s": ASM_OK}, "--arch a device"),
            (["asm", "s.s", "--arch", "s.s"], {"s.s": ASM_OK}, "--arch the source"),
            (["asm", "s.s", "-o", "s.inc"], {"s.s": ASM_OK.replace(
                "cc.halt", '.include "s.inc"\ncc.halt'), "s.inc": "; inc\n"}, "-o an include")):
        outs = tuple(a for a in argv[1:] if a.endswith((".rlb", "x")) and a != "s.rlb")
        cases.append(Case("asm", name, argv, files, "either", outs))
    for key, v in _arch_mutations():
        cases.append(Case("asm", f"--arch {key}={v}", ["asm", "s.s", "-o", "o.rlb", "--arch",
                                                        "a.toml"],
                          {"s.s": ".text\ncc.halt\n", "a.toml": _arch_edit(key, v)}, "either",
                          ("o.rlb",)))
    return cases


def _arch_mutations() -> list[tuple[str, str]]:
    import tomllib
    t = tomllib.loads((ARCHS / "adhdp.toml").read_text())
    rnd = random.Random(16)
    keys = [(f"{tb}.{k}") for tb, tab in t.items() if isinstance(tab, dict) for k in tab]
    out = []
    for k in keys:
        for v in rnd.sample(BAD_VALUES, 3):
            out.append((k, v))
    return out


def _arch_edit(dotted: str, v: str) -> str:
    return _set_keys((ARCHS / "adhdp.toml").read_text(), {dotted: v})


def _binary() -> bytes:
    from rlaccel.assembler.assemble import assemble_file
    from rlaccel.assembler.rlb import dumps
    return dumps(assemble_file(str(P["adhdp"] / "cartpole.s")).binary)


def dis_cases() -> list[Case]:
    cases = []
    good = _binary()
    rnd = random.Random(1616)
    cases.append(Case("dis", "ok", ["dis", "b.rlb"], {"b.rlb": good}, "accept"))
    for i in range(60):
        b = bytearray(good)
        for _ in range(rnd.choice((1, 2, 8))):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        cases.append(Case("dis", f"mutated-{i}", ["dis", "b.rlb"], {"b.rlb": bytes(b)},
                          "either"))
    for n in (0, 1, 4, 16, 64, len(good) // 2, len(good) - 1):
        cases.append(Case("dis", f"truncated-{n}", ["dis", "b.rlb"], {"b.rlb": good[:n]}))
    cases.append(Case("dis", "appended", ["dis", "b.rlb"], {"b.rlb": good + b"x" * 100},
                      "either"))
    for argv, files, name in (
            (["dis", "b.rlb", "-o", "b.rlb"], {"b.rlb": good}, "-o onto the binary"),
            (["dis", "b.rlb", "-o", "null"], {"b.rlb": good, "null": ("link", "/dev/null")},
             "-o a device"),
            (["dis", "/dev/zero"], {}, "a device"), (["dis", ""], {}, "an empty name"),
            (["dis", "b.rlb", "--arch", "darl"], {"b.rlb": good}, "--arch of another family"),
            (["dis", "b.rlb", "--arch", "nosuch"], {"b.rlb": good}, "--arch unknown")):
        cases.append(Case("dis", name, argv, files, "either"))
    return cases


def isa_cases() -> list[Case]:
    cases = [Case("isa", "ok", ["isa"], {}, "accept"),
             Case("isa", "markdown", ["isa", "--markdown"], {}, "accept")]
    for key, v in _arch_mutations():
        cases.append(Case("isa", f"--arch {key}={v}", ["isa", "--arch", "a.toml"],
                          {"a.toml": _arch_edit(key, v)}, "either"))
    for name in arch_names():
        for table, v in (("machine.lanes", "0"), ("bogus.x", "1"), ("machine.dtype", '"f99"'),
                         ("energy.clock", "nan"), ("timing.bogus", "1")):
            cases.append(Case("isa", f"{name} {table}={v}", ["isa", "--arch", "a.toml"],
                              {"a.toml": _set_keys(f'inherit = "{name}"\n', {table: v})}))
    for text, name in (("", "empty"), ("inherit = 5\n", "inherit int"),
                       ('inherit = "a"\n', "inherit itself"), ("[machine]\n", "empty machine"),
                       (bytes(range(256)), "binary")):
        cases.append(Case("isa", name, ["isa", "--arch", "a.toml"], {"a.toml": text}))
    return cases


def cosim_cases() -> list[Case]:
    cases = []
    blocks = ["lane", "activation", "decoder", "lg_osel", "darl_butterfly", "maddpg_ring",
              "fixar_prng"]
    for b in blocks:
        cases.append(Case("cosim", f"{b} ok", ["cosim", b, "--n", "2"], {}, "accept"))
        for flag, v in (("--n", "0"), ("--n", "-5"), ("--n", str(1 << 70)), ("--n", "x"),
                        ("--seed", "-1"), ("--seed", str(1 << 64)), ("--arch", "nosuch"),
                        ("--arch", "darl"), ("--backend", "nope")):
            n = [] if flag == "--n" else ["--n", "2"]
            cases.append(Case("cosim", f"{b} {flag} {v}", ["cosim", b, flag, v, *n], {},
                              "either"))
    for target, files, name in (("null", {"null": ("link", "/dev/null")}, "a device"),
                                ("d", {"d": ("dir",)}, "a directory"),
                                ("no/dir/w.vcd", {}, "a missing directory"), ("", {}, "empty")):
        cases.append(Case("cosim", f"--vcd {name}", ["cosim", "lane", "--n", "2", "--vcd",
                                                      target], files))
    cases.append(Case("cosim", "unknown block", ["cosim", "nope"], {}))
    return cases


def rtl_cases() -> list[Case]:
    cases = []
    for sub in ("verilog", "lint", "synth"):
        for b, arch in (("nope", None), ("lane", "nosuch"), ("lane", "adhdp-f64"),
                        ("fixar_pe", "darl"), ("lane", "a.toml")):
            argv = ["rtl", sub, b] + (["--arch", arch] if arch else [])
            if sub == "verilog":
                argv += ["-o", "v"]
            cases.append(Case("rtl", f"{sub} {b} {arch}", argv,
                              {"a.toml": _arch_edit("machine.lanes", "0")}, "either", ("v",)))
    for target, files, name in (("m.toml", {"m.toml": "x = 1\n"}, "a file"),
                                ("null", {"null": ("link", "/dev/null")}, "a device")):
        cases.append(Case("rtl", f"verilog -o {name}", ["rtl", "verilog", "lane", "-o", target],
                          files))
    cases.append(Case("rtl", "synth --target nope", ["rtl", "synth", "lane", "--target",
                                                      "nope"], {}))
    for flag, v in (("--instructions", "0"), ("--instructions", "-1"),
                    ("--instructions", str(1 << 70)), ("--json", "m.toml")):
        cases.append(Case("rtl", f"speed {flag} {v}", ["rtl", "speed", "--manifest", "m.toml",
                                                        flag, v],
                          {"m.toml": _manifest("adhdp")}, "either"))
    return cases


def report_cases() -> list[Case]:
    cases = []
    for fam in ("adhdp", "fixar", "darl", "maddpg", "learninggroup"):
        for target, files, name in (("m.toml", {"m.toml": "x = 1\n"}, "a file"),
                                    ("m.toml/r", {"m.toml": "x = 1\n"}, "under a file"),
                                    ("null", {"null": ("link", "/dev/null")}, "a device"),
                                    ("", {}, "empty")):
            cases.append(Case("report", f"{fam} -o {name}", ["report", fam, "-o", target],
                              files))
    for argv in (["report", "nope"], ["report", "adhdp", "--trials", "0"],
                 ["report", "adhdp", "--trials", "-1"], ["report", "adhdp", "--sizes", "nope"],
                 ["report", "fixar", "--batches", "0"], ["report", "fixar", "--train-steps",
                                                         "-1"],
                 ["report", "fixar", "--manifest", "/dev/zero"],
                 ["report", "darl", "--stages", "0"], ["report", "darl", "--reuse"],
                 ["report", "darl", "--learning", "/dev/zero"],
                 ["report", "maddpg", "--batches", "0"], ["report", "maddpg", "--rounds", "-1"],
                 ["report", "maddpg", "--set", "nope=1"],
                 ["report", "learninggroup", "--draws", "0"],
                 ["report", "learninggroup", "--agents", "-3"],
                 ["report", "learninggroup", "--episodes", "0"],
                 ["report", "learninggroup", "--seed", "-1"],
                 ["report", "learninggroup", "--learning", "/dev/zero"]):
        cases.append(Case("report", " ".join(argv[1:]), argv + ["-o", "r"], {}, "refuse",
                          ("r",)))
    return cases


def sweep_cases() -> list[Case]:
    cases = []
    head = f'manifest = "{TINY["adhdp"][0]}"\n[set]\ntrials = 1\nmax_steps = 5\n'
    specs = {
        "empty": "", "no-axes": head + "[metrics]\nc = \"cycles\"\n",
        "axis-empty": head + "[axes]\nseed = []\n[metrics]\nc = \"cycles\"\n",
        "range-huge": head + f"[axes]\nseed = {{range = [1, {1 << 40}]}}\n[metrics]\nc = \"cycles\"\n",
        "range-backwards": head + "[axes]\nseed = {range = [5, 1]}\n[metrics]\nc = \"cycles\"\n",
        "metric-bad": head + "[axes]\nseed = [1]\n[metrics]\nc = \"__import__('os')\"\n",
        "metric-unknown": head + "[axes]\nseed = [1]\n[metrics]\nc = \"nope\"\n",
        "arch-axis-bad": head + "[axes]\n\"arch.machine.lanes\" = [0]\n[metrics]\nc = \"cycles\"\n",
        "manifest-missing": 'manifest = "nope.toml"\n[axes]\nseed = [1]\n[metrics]\nc = "cycles"\n',
        "manifest-dev": 'manifest = "/dev/zero"\n[axes]\nseed = [1]\n[metrics]\nc = "cycles"\n',
        "unknown-top": head + "bogus = 1\n",
        "ok": head + "[axes]\nseed = [1, 2]\n[metrics]\nc = \"cycles\"\n",
    }
    for name, text in specs.items():
        cases.append(Case("sweep", name, ["sweep", "spec.toml", "--db", "s.sqlite", "-q",
                                          "--workers", "1"], {"spec.toml": text}, "either",
                          ("s.sqlite", "s.sqlite-wal", "s.sqlite-shm")))
    ok = specs["ok"]
    for argv, files, name in (
            (["sweep", "spec.toml", "--db", "spec.toml"], {}, "db onto the spec"),
            (["sweep", "spec.toml", "--db", "null"], {"null": ("link", "/dev/null")}, "db a device"),
            (["sweep", "spec.toml", "--db", "d"], {"d": ("dir",)}, "db a directory"),
            (["sweep", "spec.toml", "--db", "x.sqlite"], {"x.sqlite": b"not sqlite" * 10},
             "db not sqlite"),
            (["sweep", "spec.toml", "--workers", "0"], {}, "workers 0"),
            (["sweep", "spec.toml", "--limit", "-1"], {}, "limit -1"),
            (["sweep", "show", "nope.sqlite"], {}, "show missing"),
            (["sweep", "show", "spec.toml"], {}, "show not sqlite"),
            (["sweep", "show", "/dev/zero"], {}, "show a device")):
        cases.append(Case("sweep", name, argv, {"spec.toml": ok, **files}))
    return cases


def dse_cases() -> list[Case]:
    cases = []
    base = _manifest("maddpg")
    for key, v in (("dse.search", '"nope"'), ("dse.f", "-1"), ("dse.f", "nan"),
                   ("dse.f", '"x"'), ("learning.batch", "0"), ("learning.hidden", "[0]"),
                   ("learning.hidden", f"[{1 << 40}]"), ("dse.bogus", "1")):
        cases.append(Case("dse", f"{key}={v}", ["dse", "maddpg", "--manifest", "m.toml"],
                          {"m.toml": _set_keys(base, {key: v})}, "either"))
    for argv, files, name in (
            (["dse", "nope"], {}, "unknown machine"),
            (["dse", "maddpg", "--manifest", "m.toml"], {"m.toml": _manifest("adhdp")},
             "another family's manifest"),
            (["dse", "maddpg", "--manifest", "m.toml", "--json", "m.toml"],
             {"m.toml": base}, "json onto the manifest"),
            (["dse", "maddpg", "--manifest", "/dev/zero"], {}, "a device manifest")):
        cases.append(Case("dse", name, argv, files))
    return cases


GENERATORS = {"asm": asm_cases, "dis": dis_cases, "isa": isa_cases, "run": run_cases,
              "report": report_cases, "cosim": cosim_cases, "rtl": rtl_cases,
              "sweep": sweep_cases, "dse": dse_cases}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=sorted(GENERATORS), default=list(GENERATORS))
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per case")
    ap.add_argument("--json", metavar="FILE", help="write every outcome as JSON")
    ap.add_argument("--match", help="only cases whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    results = []
    for verb in args.only:
        for case in GENERATORS[verb]():
            if args.match and args.match not in case.name:
                continue
            o = run_case(case, args.limit)
            results.append(o)
            if args.verbose or not o.ok:
                print(f"{'ok ' if o.ok else 'BAD'} {verb:6s} {case.name[:60]:60s} {o.kind:9s} "
                      f"{o.seconds:6.1f}s {o.message[:300]!r}", flush=True)
    print("\nverb     cases  refused  accepted  problems")
    total = [0, 0, 0, 0]
    for verb in args.only:
        rs = [o for o in results if o.case.verb == verb]
        row = [len(rs), sum(o.kind == "refused" for o in rs), sum(o.kind == "accepted"
                                                                  for o in rs),
               sum(not o.ok for o in rs)]
        total = [a + b for a, b in zip(total, row)]
        print(f"{verb:8s} {row[0]:5d}  {row[1]:7d}  {row[2]:8d}  {row[3]:8d}")
    print(f"{'all':8s} {total[0]:5d}  {total[1]:7d}  {total[2]:8d}  {total[3]:8d}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"verb": o.case.verb, "case": o.case.name, "argv": o.case.argv,
              "expect": o.case.expect, "outcome": o.kind, "status": o.status,
              "message": o.message, "seconds": round(o.seconds, 2)} for o in results],
            indent=1))
    return 1 if total[3] else 0


if __name__ == "__main__":
    sys.exit(main())

"""A hostile user over every verb: count the cases and their outcomes per verb.

    nice -n 10 python bench/hostile.py [--only VERB ...] [--match TEXT] [--jobs N]
                                       [--limit S] [--memory KB] [--json FILE]
                                       [--summary FILE] [-v]

Each case runs ``python -m rlaccel ARGV`` as its own process, in a new temporary directory
holding the case's files, under an address-space limit (``--memory``, KiB, default 3,000,000:
what ``ulimit -v 3000000`` in a user's shell or a batch system's memory limit imposes; set in
the child with ``resource.setrlimit(RLIMIT_AS)``) and a time limit (``--limit``, after which
its whole process group is killed), ``--jobs`` cases at a time. Each is judged:

* ``refused``   -- exit 1 with one ``rlaccel VERB: error: ...`` message, or exit 2 with the
  usage line and ``error: ...``;
* ``accepted``  -- exit 0;
* ``traceback`` -- a Python traceback on stderr (an exception left ``main``, or a worker's);
* ``hang``      -- the time limit passed;
* ``crashed``   -- killed by a signal (a segfault, the kernel's OOM killer), or another exit
  status;
* ``silent``    -- a non-zero exit without a message;
* ``damaged``   -- one of the case's own files changed, vanished, lost a hard link or its
  permissions, or a file appeared that is not one of the case's declared outputs.

``bench/hostile_results.txt`` is the summary of the last full run, with its command
(``--summary`` writes it).

A case expects ``refuse``, ``accept`` or ``either`` (a value the verb may take); a case whose
outcome is not what it expects is a *wrong exit*. The summary counts, per verb, the cases,
refusals, acceptances and problems, then the problems by kind: tracebacks, hangs, wrong
exits (crashed, silent, or not the expected outcome) and damaged or lost files.

The cases are generated, seeded (no random choice is unseeded): wrong types, nan/inf,
negative and huge values, missing and unknown keys, wrong environment ids, outputs onto
inputs (named directly or by a manifest or spec; hard links), unwritable outputs and device
files (a symbolic link to /dev/null: nothing is written to /dev), memory a knob asks for,
damaged and foreign sweep databases, sweeps too large to build, a Ray address that does not
answer, crafted checkpoints, another machine's architecture for an RTL block; for the
assembler, the disassembler, the ISA summary, every machine's manifest (``run``, ``--set``,
``--arch-set``, ``--seeds``, ``--checkpoint``), ``report``, ``cosim``, ``rtl
verilog|lint|synth|speed``, ``sweep`` and ``dse``. Runs that a case lets through use each
machine's smallest configuration (a few steps).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
import numpy as np
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

#: the address space a case may use (KiB, as ulimit -v takes it) and its seconds
MEMORY_KB = 3_000_000
TIME_LIMIT = 60.0

PROBLEMS = ("traceback", "hang", "crashed", "silent", "damaged")


@dataclass
class Case:
    verb: str
    name: str
    argv: list[str]
    #: name -> str | bytes | ("link", target) | ("fifo",) | ("dir",) | ("hardlink", name)
    #: | ("mode", octal, contents) | ("sqlite", [SQL, ...])
    files: dict = field(default_factory=dict)
    expect: str = "refuse"                           # refuse | accept | either
    outputs: tuple = ()                              # files the verb may create or change
    limit: float | None = None                       # seconds, if not the bench's


@dataclass
class Outcome:
    case: Case
    kind: str
    status: object
    message: str
    seconds: float

    @property
    def wrong_exit(self) -> bool:
        """Crashed, silent, or not the outcome the case expects."""
        if self.kind in ("crashed", "silent"):
            return True
        if self.kind in ("traceback", "hang", "damaged"):
            return False
        return not (self.case.expect == "either" or
                    {"refuse": "refused", "accept": "accepted"}[self.case.expect] == self.kind)

    @property
    def ok(self) -> bool:
        return self.kind not in PROBLEMS and not self.wrong_exit


# ------------------------------------------------------------------------------ running

def _make_files(d: Path, files: dict) -> None:
    later = []
    for name, content in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple):
            kind = content[0]
            if kind == "link":
                p.symlink_to(content[1])
            elif kind == "fifo":
                os.mkfifo(p)
            elif kind == "dir":
                p.mkdir(exist_ok=True)
            elif kind == "hardlink":
                later.append((p, d / content[1]))
            elif kind == "mode":
                p.write_bytes(content[2].encode() if isinstance(content[2], str)
                              else content[2])
                p.chmod(content[1])
            elif kind == "sqlite":
                con = sqlite3.connect(p)
                for sql in content[1]:
                    con.executescript(sql)
                con.commit()
                con.close()
            elif kind == "bytes-of":                   # another file's bytes, edited
                later.append((p, content))
            else:
                raise ValueError(kind)
        else:
            p.write_bytes(content.encode() if isinstance(content, str) else content)
    for p, what in later:
        if isinstance(what, Path):
            os.link(what, p)
        else:
            _, src, edit = what
            p.write_bytes(edit((d / src).read_bytes()))


def _snapshot(d: Path) -> dict:
    out = {}
    for p in sorted(d.rglob("*")):
        rel = str(p.relative_to(d))
        try:
            st = p.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            try:
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
            except OSError:
                digest = "unreadable"
            out[rel] = ("file", digest, st.st_ino, st.st_nlink, stat.S_IMODE(st.st_mode))
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir",)
        else:
            out[rel] = ("other", stat.S_IFMT(st.st_mode))
    return out


def _limits(memory_kb: int):
    def apply():
        import resource
        if memory_kb:
            b = memory_kb * 1024
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_case(case: Case, limit: float, memory_kb: int) -> Outcome:
    """Run one case as its own process under the limits and judge it."""
    d = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        _make_files(d, case.files)
        before = _snapshot(d)
        env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1",
               "TMPDIR": str(d / ".tmp")}
        env.pop("RAY_ADDRESS", None)
        (d / ".tmp").mkdir()
        before[".tmp"] = ("dir",)
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "rlaccel", *case.argv], cwd=d,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, start_new_session=True,
                                preexec_fn=_limits(memory_kb))
        kind = None
        try:
            out, err = proc.communicate(timeout=case.limit or limit)
        except subprocess.TimeoutExpired:
            kind = "hang"
            _kill_group(proc)
            out, err = proc.communicate()
        _kill_group(proc)                      # a worker left behind counts as nothing
        seconds = time.perf_counter() - t0
        status = proc.returncode
        text = err.decode("utf-8", "replace").rstrip("\n")
        last = text.splitlines()[-1] if text else ""
        if kind is None:
            kind, last = _judge(case, status, text, last)
        after = _snapshot(d)
        for name, h in before.items():
            if name.startswith(".tmp"):
                continue
            now = after.get(name)
            if now != h and name not in case.outputs:
                kind, last = "damaged", f"{name} {_how(h, now)}; " + last
            elif (name in case.outputs and h[0] == "file" and now is not None
                  and now[0] == "file"):
                # an output written over an existing file keeps its links and its mode
                if h[3] > 1 and (now[2], now[3]) != (h[2], h[3]):
                    kind, last = "damaged", (f"{name} lost a hard link ({h[3]} links, now "
                                             f"{now[3]}); " + last)
                elif now[4] != h[4]:
                    kind, last = "damaged", (f"{name} changed its permissions from "
                                             f"{h[4]:o} to {now[4]:o}; " + last)
        allowed = set(case.outputs)
        extra = [n for n in after if n not in before and n not in allowed
                 and not n.startswith(".tmp")
                 and not any(n.startswith(o.rstrip("/") + "/") for o in allowed)
                 and ".rescued-" not in n]
        if extra and kind != "hang":
            kind, last = "damaged", f"unexpected files {extra[:3]}; " + last
        message = last if kind != "traceback" else text[-800:]
        return Outcome(case, kind, status, message, seconds)
    finally:
        _rmtree(d)


def _judge(case: Case, status, text: str, last: str) -> tuple[str, str]:
    if "Traceback (most recent call last)" in text:
        return "traceback", last
    if status == 0:
        return "accepted", last
    if status == 1 and (first := next((ln for ln in text.splitlines()
                                       if re.match(r"^rlaccel [\w ]+: error: \S", ln)), None)):
        return "refused", first            # (an assembler message goes on: line, caret)
    if status == 1 and text and case.verb == "cosim":
        return "refused", last             # a cosim mismatch report: exit 1, its own lines
    if status == 2 and text.startswith("usage: rlaccel") and ": error: " in last:
        return "refused", last
    if status is not None and status < 0:
        return "crashed", f"killed by signal {-status} ({signal.Signals(-status).name}); " + last
    if not text:
        return "silent", f"exit {status}"
    return "crashed", f"exit {status}; " + last


def _how(before, after) -> str:
    if after is None:
        return "vanished"
    if before[0] == "file" and after[0] == "file":
        if before[1] != after[1]:
            return "changed"
        if before[3] != after[3] or before[2] != after[2]:
            return f"lost a hard link ({before[3]} links, now {after[3]})"
        if before[4] != after[4]:
            return f"changed its permissions from {before[4]:o} to {after[4]:o}"
    return f"became {after[0]}"


def _kill_group(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _rmtree(d: Path) -> None:
    for p in [d, *d.rglob("*")]:                       # a case may leave read-only dirs
        try:
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o700)
        except OSError:
            pass
    shutil.rmtree(d, ignore_errors=True)


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
    return cases + run_issue33_cases()


def _local_adhdp() -> dict:
    """The one-trial cart-pole manifest ``m.toml`` beside copies of its programs and include
    files (so an output can be aimed at a file the manifest names)."""
    d = P["adhdp"]
    files = {n: (d / n).read_text() for n in ("cartpole.s", "cartpole_vu.s", "layout.inc",
                                               "fig2.inc", "fig7.inc")}
    files["m.toml"] = _set_keys((d / "cartpole.toml").read_text(), TINY["adhdp"][1])
    return files


#: knobs that ask for more memory than a process may have, or values a machine must refuse
MEMORY_AND_RANGES = {
    "maddpg": [("learning.hidden", "[100000, 100000]"), ("learning.hidden", "[60000, 60000]"),
               ("learning.buffer", str(1 << 40)), ("learning.adam_beta2", "1.5"),
               ("learning.adam_beta2", "1.0"), ("learning.adam_beta1", "-0.1"),
               ("learning.batch", str(10 ** 12)), ("dse.f", str(10 ** 6))],
    "fixar": [("learning.hidden", "[100000, 100000]"), ("learning.hidden", "[60000, 60000]"),
              ("learning.buffer", "4000000000"), ("learning.batch", "100000")],
    "darl": [("learning.terminal_reward", "nan"), ("learning.terminal_reward", "inf"),
             ("learning.buffer", "3000000000"), ("learning.d", str(10 ** 8)),
             ("learning.target", "nan"), ("agents", "16")],
    "learninggroup": [("learning.batch_episodes", str(10 ** 9)), ("network.hid", "60000"),
                      ("network.hid", "100000"), ("learning.alpha", "2.0")],
    "adhdp": [("network.actor", "[4, 100000000, 1]"), ("learning.gamma", "1.5"),
              ("trials", str(1 << 41))],
}


def run_issue33_cases() -> list[Case]:
    """Issue 33: memory a knob asks for, ranges, outputs onto files a manifest names,
    crafted checkpoints."""
    cases = []
    for fam, pairs in MEMORY_AND_RANGES.items():
        for key, v in pairs:
            cases.append(Case("run", f"{fam}-{key}={v}", ["run", "m.toml", "-q"],
                              {"m.toml": _manifest(fam, lambda t, k=key, v=v:
                                                   _set_keys(t, {k: v}))}))
    local = _local_adhdp()
    for target in ("cartpole_vu.s", "layout.inc", "fig7.inc", "cartpole.s"):
        for flag in ("--json", "--trace", "--checkpoint"):
            cases.append(Case("run", f"{flag} onto {target} (the manifest names it)",
                              ["run", "m.toml", "-q", flag, target], local))
    cases.append(Case("run", "--seeds --json onto the program_vu",
                      ["run", "m.toml", "-q", "--seeds", "1-2", "--json", "cartpole_vu.s"],
                      local))
    cases.append(Case("run", "--json onto a hard link of the manifest",
                      ["run", "m.toml", "-q", "--json", "h.json"],
                      {**local, "h.json": ("hardlink", "m.toml")}))
    cases.append(Case("run", "--json keeps a hard link and the mode",
                      ["run", "m.toml", "-q", "--json", "r.json"],
                      {**local, "r.json": ("mode", 0o640, "{}"), "h.json": ("hardlink", "r.json")},
                      "accept", ("r.json", "h.json")))
    for name, blob in _checkpoints().items():
        cases.append(Case("run", f"--checkpoint {name}",
                          ["run", "m.toml", "-q", "--checkpoint", "c.ckpt"],
                          {**local, "c.ckpt": blob}))
    return cases


def _checkpoints() -> dict:
    """Crafted checkpoint files: the pickle of an older rlaccel that would run code if it
    were loaded (it makes a file ``pwned``: a damage the bench sees), and files of the
    current format that are foreign, truncated, damaged, malformed or of another run."""
    import pickle
    import struct
    from rlaccel.programs import checkpoint as ck

    class Evil:
        def __reduce__(self):
            return (os.system, ("touch pwned",))

    out = {"a pickle that runs code": pickle.dumps({"format": "rlaccel-checkpoint-1",
                                                    "fingerprint": {}, "x": Evil()}),
           "a bare pickle that runs code": pickle.dumps(Evil()),
           "empty": b"", "text": "hello\n", "the magic only": ck.MAGIC,
           "version 99": ck.MAGIC + struct.pack("<IQ", 99, 2) + b"{}",
           "a header size of 2**60": ck.MAGIC + struct.pack("<IQ", ck.FORMAT_VERSION, 1 << 60)
           + b"{}" + bytes(32)}
    d = Path(tempfile.mkdtemp(prefix="hostile-ckpt-"))
    try:
        f = d / "c.ckpt"
        ck.write(f, {"manifest": "/elsewhere/m.toml"}, {"x": 1}, {"a": np.arange(4)})
        good = f.read_bytes()
        out["another run's"] = good
        out["one byte flipped"] = good[:60] + bytes([good[60] ^ 1]) + good[61:]
        out["truncated"] = good[:len(good) // 2]
        out["an appended byte"] = good + b"x"
        ck.write(f, {"manifest": "/elsewhere/m.toml"}, {"x": 1},
                 {"a": np.zeros((1 << 16,), np.int64)})
        big = f.read_bytes()
        head = big.replace(b'"shape":[65536]', b'"shape":[9999999999999]')
        import hashlib
        out["a shape beyond its bytes (fresh digest)"] = head[:-32] + \
            hashlib.sha256(head[:-32]).digest()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return out


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
    # issue 33
    for text, name in ((".arch adhdp, fixar\n.text\ncc.halt\n", ".arch with two names"),
                       (".arch adhdp fixar\n", ".arch a b"), (".arch\n", ".arch alone"),
                       (".arch 5\n", ".arch a number")):
        cases.append(Case("asm", name, ["asm", "s.s", "-o", "o.rlb"], {"s.s": text}, "either",
                          ("o.rlb",)))
    cases.append(Case("asm", "5 MB of .equ lines",
                      ["asm", "s.s", "-o", "o.rlb"],
                      {"s.s": ".arch adhdp\n" + "".join(f".equ C{i}, {i}\n"
                                                           for i in range(400_000))},
                      "either", ("o.rlb",)))
    cases.append(Case("asm", "-o onto a hard-linked file keeps the link and the mode",
                      ["asm", "s.s", "-o", "o.rlb"],
                      {"s.s": ASM_OK, "o.rlb": ("mode", 0o640, b"old"),
                       "h.rlb": ("hardlink", "o.rlb")}, "accept", ("o.rlb", "h.rlb")))
    cases.append(Case("asm", "-o a hard link of the source",
                      ["asm", "s.s", "-o", "h.rlb"],
                      {"s.s": ASM_OK, "h.rlb": ("hardlink", "s.s")}))
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
             Case("isa", "markdown without --arch", ["isa", "--markdown"], {}, "refuse"),
             Case("isa", "markdown", ["isa", "--markdown", "--arch", "adhdp"], {}, "accept")]
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
    # issue 33: another machine's architecture (its parameters, its memory), outputs onto
    # the architecture file
    for b, arch in (("lane", "fixar"), ("lg_vpu", "maddpg"), ("darl_butterfly", "adhdp"),
                    ("fixar_prng", "darl"), ("maddpg_ring", "learninggroup"),
                    ("lg_osel", "fixar"), ("activation", "darl")):
        cases.append(Case("cosim", f"{b} --arch {arch} (another machine's)",
                          ["cosim", b, "--n", "20", "--arch", arch], {}, "either"))
    cases.append(Case("cosim", "--vcd onto the --arch file",
                      ["cosim", "fixar_prng", "--n", "2", "--arch", "a.toml", "--vcd", "a.toml"],
                      {"a.toml": 'inherit = "fixar"\n'}))
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
    for sub in ("verilog", "lint", "synth"):
        for b, arch in (("darl_encoder", "fixar"), ("lg_vpu", "maddpg"),
                        ("maddpg_cu", "adhdp")):
            argv = ["rtl", sub, b, "--arch", arch] + (["-o", "v"] if sub == "verilog" else [])
            cases.append(Case("rtl", f"{sub} {b} --arch {arch} (another machine's)", argv,
                              {}, "either", ("v",)))
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
    # issue 33: -o onto the files a report reads, a reused report of another shape
    fixar = _manifest("fixar")
    for name in ("report.md", "report.json", "fig8_system_ips.png"):
        cases.append(Case("report", f"fixar -o rep --manifest rep/{name}",
                          ["report", "fixar", "-o", "rep", "--manifest", f"rep/{name}"],
                          {f"rep/{name}": fixar}))
    for name, text in (("not JSON", '{"a":\n'), ("a list", "[1, 2]"),
                       ("no tables", '{"args": {}}'),
                       ("wrong shapes", '{"args": {"stages": 1}, "table1": {}, "fig10a": 3, '
                                        '"fig11": [], "cpu": null}'),
                       ("binary", bytes(range(256)))):
        cases.append(Case("report", f"darl --reuse on {name}",
                          ["report", "darl", "-o", "r", "--reuse", "--learning"],
                          {"r/report.json": text}))
    for name, text in (("not JSON", "{"), ("runs not a list", '{"runs": 3}'),
                       ("a run of another shape", '{"runs": [{"task": "pong"}]}')):
        cases.append(Case("report", f"darl --learning {name}",
                          ["report", "darl", "-o", "r", "--learning", "l.json"],
                          {"l.json": text}, "refuse", ("r",)))
        cases.append(Case("report", f"learninggroup --learning {name}",
                          ["report", "learninggroup", "-o", "r", "--learning", "l.json"],
                          {"l.json": text}, "refuse", ("r",)))
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
    return cases + sweep_issue33_cases(head, ok)


def _sweep_db() -> bytes:
    """A finished two-point sweep's database (its rows written as a sweep writes them)."""
    from rlaccel.sweep.spec import parse_spec
    from rlaccel.sweep.store import Store
    d = Path(tempfile.mkdtemp(prefix="hostile-db-"))
    try:
        spec = parse_spec(f'manifest = "{TINY["adhdp"][0]}"\n[axes]\nseed = [1, 2]\n'
                          f'[metrics]\nc = "cycles"\n', d / "spec.toml")
        with Store.open(d / "s.sqlite", spec) as st:
            st.record([{"index": i, "status": "done", "metrics": {"c": 9}, "error": None,
                        "wall_s": 0.5, "arch": "adhdp", "version": "0",
                        "binary_sha256": "x", "worker": "w"} for i in range(2)])
        return (d / "s.sqlite").read_bytes()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _db_edit(db: bytes, *sql) -> bytes:
    d = Path(tempfile.mkdtemp(prefix="hostile-db-"))
    try:
        f = d / "s.sqlite"
        f.write_bytes(db)
        con = sqlite3.connect(f)
        for q in sql:
            con.execute(q)
        con.commit()
        con.execute("PRAGMA journal_mode=DELETE")
        con.close()
        return f.read_bytes()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def sweep_issue33_cases(head: str, ok: str) -> list[Case]:
    """Issue 33: sweeps too large to build, --limit on them, axis formats, seeds, damaged and
    foreign databases, a Ray address that does not answer, outputs onto the spec."""
    cases = []
    run = ["--db", "s.sqlite", "-q", "--workers", "1"]
    outs = ("s.sqlite", "s.sqlite-wal", "s.sqlite-shm", "s.sqlite-journal")
    metrics = '[metrics]\nc = "cycles"\n'
    big3 = head + ('[axes]\n"learning.Ic" = {range = [1, 1000]}\n"learning.Ia" = {range = '
                   '[1, 1000]}\nseed = {range = [1, 1000]}\n') + metrics
    big2 = head + ('[axes]\n"learning.Ic" = {range = [1, 400]}\n"learning.Ia" = {range = '
                   '[1, 400]}\n') + metrics
    for name, text, argv, expect in (
            ("three axes of 1,000 values", big3, [], "refuse"),
            ("three axes of 1,000 values --limit 1", big3, ["--limit", "1"], "refuse"),
            ("400 x 400 configurations --limit 1", big2, ["--limit", "1"], "accept"),
            ("format q{}.{}", head + '[axes]\n"arch.machine.dtype" = {range = [4, 6], '
                                     'format = "q{}.{}"}\n' + metrics, [], "refuse"),
            ("format q6.{}{0}", head + '[axes]\n"arch.machine.dtype" = {range = [4, 6], '
                                       'format = "q6.{}{0}"}\n' + metrics, [], "refuse"),
            ("format q6.{:q}", head + '[axes]\n"arch.machine.dtype" = {range = [4, 6], '
                                      'format = "q6.{:q}"}\n' + metrics, [], "refuse"),
            ("format {0.real}", head + '[axes]\n"learning.Ic" = {range = [4, 6], '
                                       'format = "{0.real}"}\n' + metrics, [], "refuse"),
            ("seed -1", head + "[axes]\nseed = [-1, 2]\n" + metrics, [], "refuse"),
            ("seed 2**64-1", head + f"[axes]\nseed = [{(1 << 64) - 1}]\n" + metrics, [],
             "refuse"),
            ("seed 1.0", head + "[axes]\nseed = [1.0, 2.0]\n" + metrics, [], "refuse"),
            ("seed in [set] -1", head.replace("[set]\n", "[set]\nseed = -1\n")
             + "[axes]\ntrials = [1, 2]\n" + metrics, [], "refuse"),
            ("a repeated value", head + "[axes]\nseed = [1, 1]\n" + metrics, [], "refuse")):
        cases.append(Case("sweep", name, ["sweep", "spec.toml", *run, *argv],
                          {"spec.toml": text}, expect, outs))
    cases.append(Case("sweep", "--ray 256.1.1.1:1", ["sweep", "spec.toml", *run, "--ray",
                                                      "256.1.1.1:1"], {"spec.toml": ok},
                      "refuse", outs, limit=30))
    cases.append(Case("sweep", "--ray 127.0.0.1:1", ["sweep", "spec.toml", *run, "--ray",
                                                      "127.0.0.1:1"], {"spec.toml": ok},
                      "refuse", outs, limit=30))
    plot = ok + '[plot]\nx = "seed"\ny = "c"\n'
    cases.append(Case("sweep", "a spec pm.md with [plot] and --db pm.sqlite",
                      ["sweep", "pm.md", "--db", "pm.sqlite", "-q", "--workers", "1"],
                      {"pm.md": plot}))
    cases.append(Case("sweep", "--db onto the manifest the spec names",
                      ["sweep", "spec.toml", "--db", "m.toml", "-q", "--workers", "1"],
                      {"spec.toml": ok.replace(f'"{TINY["adhdp"][0]}"', '"m.toml"'),
                       "m.toml": _manifest("adhdp")}))
    db = _sweep_db()
    cases.append(Case("sweep", "show a good database", ["sweep", "show", "s.sqlite"],
                      {"s.sqlite": db}, "accept"))
    cases.append(Case("sweep", "show --csv onto the database",
                      ["sweep", "show", "s.sqlite", "--csv", "s.sqlite"], {"s.sqlite": db}))
    cases.append(Case("sweep", "show --csv onto its -wal",
                      ["sweep", "show", "s.sqlite", "--csv", "s.sqlite-wal"], {"s.sqlite": db}))
    cases.append(Case("sweep", "show --plot onto the database",
                      ["sweep", "show", "s.sqlite", "--plot", "s.sqlite"], {"s.sqlite": db}))
    blob = bytearray(db)
    blob[8192:8208] = b"\xab" * 16
    damaged = {
        "a malformed page": bytes(blob),
        "truncated": db[:5000],
        "bad JSON in coords": _db_edit(db, "UPDATE points SET coords = '{bad' WHERE idx = 1"),
        "bad JSON in metrics": _db_edit(db, "UPDATE points SET metrics = '[' WHERE idx = 0"),
        "metrics a list": _db_edit(db, "UPDATE points SET metrics = '[1]' WHERE idx = 0"),
        "a text wall_s": _db_edit(db, "UPDATE points SET timing = '{\"wall_s\": "
                                      "\"slow\"}' WHERE idx = 0"),
        "timing not JSON": _db_edit(db, "UPDATE points SET timing = '{' WHERE idx = 0"),
        "a blob error": _db_edit(db, "UPDATE points SET error = x'00ff' WHERE idx = 0"),
        "an unknown status": _db_edit(db, "PRAGMA ignore_check_constraints = 1",
                                      "UPDATE points SET status = 'x' WHERE idx = 0"),
        "a missing column": _db_edit(db, "ALTER TABLE points DROP COLUMN version"),
        "no timing column": _db_edit(db, "ALTER TABLE points DROP COLUMN timing"),
        "no digest": _db_edit(db, "DELETE FROM meta WHERE key = 'digest'"),
        "bad axes": _db_edit(db, "UPDATE meta SET value = '{' WHERE key = 'axes'"),
        "axes not names": _db_edit(db, "UPDATE meta SET value = '[1, 2]' WHERE key = 'axes'"),
        "a foreign table too": _db_edit(db, "CREATE TABLE users (name)"),
        "a foreign database": _db_edit(b"", "CREATE TABLE users (name)",
                                       "INSERT INTO users VALUES ('ada')"),
        "an empty SQLite database": _db_edit(b"", "PRAGMA user_version = 1"),
    }
    for name, blob in damaged.items():
        files = {"s.sqlite": blob, "spec.toml": ok.replace("seed = [1, 2]", "seed = [1, 2]")}
        cases.append(Case("sweep", f"show: {name}", ["sweep", "show", "s.sqlite"], files,
                          "refuse"))
        cases.append(Case("sweep", f"show --csv: {name}",
                          ["sweep", "show", "s.sqlite", "--csv", "o.csv"], files,
                          "refuse", ("o.csv",)))
        cases.append(Case("sweep", f"--resume: {name}",
                          ["sweep", "spec.toml", "--db", "s.sqlite", "--resume", "-q",
                           "--workers", "1"], files, "either"))
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
    # issue 33: a forced base factor beyond the device, a batch run refuses, outputs onto
    # the files the manifest names
    for key, v in (("dse.f", str(10 ** 6)), ("dse.f", "44"), ("learning.batch", str(10 ** 12)),
                   ("learning.batch", "100000"), ("learning.adam_beta2", "1.5"),
                   ("learning.hidden", "[100000, 100000]"), ("learning.hidden", "[8, 8, 8]")):
        cases.append(Case("dse", f"{key}={v}", ["dse", "maddpg", "--manifest", "m.toml"],
                          {"m.toml": _set_keys(base, {key: v})}))
    d = P["maddpg"]
    local = {n: (d / n).read_text() for n in ("learner.s", "layout.inc")}
    local["m.toml"] = _set_keys((d / "speaker_listener.toml").read_text(),
                                TINY["maddpg"][1])
    for target in ("learner.s", "layout.inc", "m.toml"):
        cases.append(Case("dse", f"--json onto {target}",
                          ["dse", "maddpg", "--manifest", "m.toml", "--json", target], local))
    cases.append(Case("dse", "--set dse.f=4 --json", ["dse", "maddpg", "--manifest", "m.toml",
                                                      "--set", "dse.f=4", "--json", "d.json"],
                      local, "accept", ("d.json",)))
    return cases


GENERATORS = {"asm": asm_cases, "dis": dis_cases, "isa": isa_cases, "run": run_cases,
              "report": report_cases, "cosim": cosim_cases, "rtl": rtl_cases,
              "sweep": sweep_cases, "dse": dse_cases}


def summary(results: list[Outcome], verbs: list[str], wall: float, args) -> str:
    """The table the bench prints (and --summary records)."""
    lines = [f"$ nice -n 10 python bench/hostile.py {' '.join(sys.argv[1:])}".rstrip(),
             f"rlaccel hostile bench: {len(results)} cases, each its own process under "
             f"ulimit -v {args.memory} KiB and {args.limit:g} s, {args.jobs} at a time; "
             f"{wall / 60:.1f} min", "",
             "verb     cases  refused  accepted  problems"]
    total = [0, 0, 0, 0]
    for verb in verbs:
        rs = [o for o in results if o.case.verb == verb]
        row = [len(rs), sum(o.kind == "refused" for o in rs),
               sum(o.kind == "accepted" for o in rs), sum(not o.ok for o in rs)]
        total = [a + b for a, b in zip(total, row)]
        lines.append(f"{verb:8s} {row[0]:5d}  {row[1]:7d}  {row[2]:8d}  {row[3]:8d}")
    lines.append(f"{'all':8s} {total[0]:5d}  {total[1]:7d}  {total[2]:8d}  {total[3]:8d}")
    kinds = {"tracebacks": sum(o.kind == "traceback" for o in results),
             "hangs": sum(o.kind == "hang" for o in results),
             "wrong exits": sum(o.wrong_exit for o in results),
             "damaged or lost files": sum(o.kind == "damaged" for o in results)}
    lines += ["", "problems: " + ", ".join(f"{v} {k}" for k, v in kinds.items())]
    bad = [o for o in results if not o.ok]
    if bad:
        lines += ["", "the problems:"]
        lines += [f"  {o.case.verb:6s} {o.case.name[:60]:60s} {o.kind:9s} "
                  f"{_last_line(o.message)[:160]}" for o in bad]
    return "\n".join(lines)


def _last_line(message: str) -> str:
    lines = [ln for ln in message.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=sorted(GENERATORS), default=list(GENERATORS))
    ap.add_argument("--limit", type=float, default=TIME_LIMIT, help="seconds per case")
    ap.add_argument("--memory", type=int, default=MEMORY_KB,
                    help="address space per case, KiB (as ulimit -v); 0: no limit")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="cases run at a time")
    ap.add_argument("--json", metavar="FILE", help="write every outcome as JSON")
    ap.add_argument("--summary", metavar="FILE", help="also write the summary to FILE")
    ap.add_argument("--match", help="only cases whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    cases = [c for verb in args.only for c in GENERATORS[verb]()
             if not args.match or args.match in c.name]
    lock = threading.Lock()
    wall = time.perf_counter()

    def one(case: Case) -> Outcome:
        o = run_case(case, args.limit, args.memory)
        if args.verbose or not o.ok:
            with lock:
                print(f"{'ok ' if o.ok else 'BAD'} {case.verb:6s} {case.name[:60]:60s} "
                      f"{o.kind:9s} {o.seconds:6.1f}s {o.message[:300]!r}", flush=True)
        return o

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, cases))
    text = summary(results, args.only, time.perf_counter() - wall, args)
    print("\n" + text)
    if args.summary:
        Path(args.summary).write_text(text + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"verb": o.case.verb, "case": o.case.name, "argv": o.case.argv,
              "expect": o.case.expect, "outcome": o.kind, "status": o.status,
              "message": o.message, "seconds": round(o.seconds, 2)} for o in results],
            indent=1))
    return 1 if any(not o.ok for o in results) else 0


if __name__ == "__main__":
    sys.exit(main())

"""The documents' examples run as written and print what the documents say they print, so
the README and the guides in docs/ cannot go stale.

Two kinds of example are run, in order, in one scratch directory per document (holding a
link to the repository's ``machines/``, so the examples' paths are the ones a user types at
the repository's root):

* a ``console`` block: lines starting with ``$ `` are commands, run by ``bash`` with the
  interpreter's ``bin/`` first on the PATH (where ``pip install`` puts ``rlaccel``); the
  lines after a command, up to the next, are its expected output (stdout and stderr). A
  command ending in ``<<'EOF'`` takes the lines up to ``EOF`` as its input. A command exits 0
  unless it ends in a comment ``# exit N``.
* a ``python`` block followed by a ``text`` block: the code runs as a script and prints the
  text.

Figures that this computer measures (a line that reports wall time or a rate per second)
are compared with their numbers masked; every other character must match.
``python tests/test_readme.py --update [DOC ...]`` runs the examples and writes what they
print back into the documents (then read the diff before committing it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
#: the documents whose examples are run
DOCS = ("README.md", "docs/tutorial.md", "docs/api.md")
#: a line that holds a figure this computer measured (wall time, a rate, what the host took;
#: MADDPG's eq. 7 IPS, from the host's measured sample generation): its numbers are masked
VOLATILE = re.compile(r"wall|/s\b|per second|compil|elapsed|this host|T_SG|eq\. 7\b|"
                      r"\b\d+(\.\d+)?s\b")
#: the notices of a first compile (tlm/fast/jit.py), printed once per cache
FIRST_COMPILE = re.compile(r"^rlaccel \w+: compil(ing|ed) .* (with numba|in [\d.]+ s of CPU)")
_NUMBER = re.compile(r"\d[\d,]*(\.\d+)?")
#: a wall time as rlaccel.programs.summary.seconds_text writes it: 0.84 s, 3 min 05 s, 1 h 02 min
_DURATION = re.compile(r"\d+ h \d+ min|\d+ min \d+ s|\d+(\.\d+)? s\b")
_FENCE = re.compile(r"^```(\w*)\s*$")
_EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")


@dataclass
class Example:
    kind: str           # "console" or "python"
    start: int          # the 0-based line of the block's first content line
    end: int            # the line of its closing fence
    source: list[str]   # console: the block's lines; python: the code
    out_start: int = 0  # python: the text block's first line and closing fence
    out_end: int = 0
    expected: list[str] | None = None


def examples(lines: list[str]) -> list[Example]:
    """The runnable examples of a document's lines."""
    blocks, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        blocks.append((m.group(1), i + 1, j))
        i = j + 1
    out = []
    for n, (kind, a, b) in enumerate(blocks):
        if kind == "console":
            out.append(Example("console", a, b, lines[a:b]))
        elif kind == "python" and n + 1 < len(blocks) and blocks[n + 1][0] == "text":
            _, c, d = blocks[n + 1]
            between = "".join(lines[b + 1:c - 1]).strip()
            if between.rstrip(":") in ("prints", "it prints", "which prints"):
                out.append(Example("python", a, b, lines[a:b], c, d, lines[c:d]))
    return out


def commands(block: list[str]) -> list[tuple[str, int, list[str], int, int]]:
    """A console block's commands: (command with its here-document, exit status expected,
    expected output, first and last+1 line of the output within the block)."""
    out, i = [], 0
    while i < len(block):
        if not block[i].startswith("$ "):
            raise ValueError(f"console block line {i + 1}: output before any command")
        cmd, i = block[i][2:], i + 1
        if cmd.rstrip().endswith("<<'EOF'"):
            body = []
            while i < len(block) and block[i] != "EOF":
                body.append(block[i])
                i += 1
            cmd, i = "\n".join([cmd, *body, "EOF"]), i + 1
        m = _EXIT.search(cmd.splitlines()[0])
        status = int(m.group(1)) if m else 0
        a = i
        while i < len(block) and not block[i].startswith("$ "):
            i += 1
        out.append((cmd, status, block[a:i], a, i))
    return out


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    env.pop("RLACCEL_MACHINES", None)
    return env


def _lines(done: subprocess.CompletedProcess) -> tuple[int, list[str]]:
    """Exit status and output lines, without the first run's compile notices (a cold numba
    cache prints them once; the README says so in prose)."""
    lines = done.stdout.rstrip("\n").split("\n") if done.stdout else []
    return done.returncode, [s for s in lines if not FIRST_COMPILE.match(s)]


def run_console(cmd: str, cwd: Path) -> tuple[int, list[str]]:
    return _lines(subprocess.run(["bash", "-c", cmd], cwd=cwd, env=_env(), text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT))


def run_python(code: str, cwd: Path) -> tuple[int, list[str]]:
    script = cwd / "example.py"
    script.write_text(code)
    return _lines(subprocess.run([sys.executable, str(script)], cwd=cwd, env=_env(), text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT))


def masked(lines: list[str]) -> list[str]:
    return [_NUMBER.sub("#", _DURATION.sub("# s", s)) if VOLATILE.search(s) else s
            for s in lines]


def scratch() -> tempfile.TemporaryDirectory:
    d = tempfile.TemporaryDirectory(prefix="rlaccel-doc-")
    (Path(d.name) / "machines").symlink_to(ROOT / "machines")
    return d


def check(doc: str, update: bool = False) -> list[str]:
    """Run a document's examples; the differences found (with ``update``: write the outputs
    into the document instead, and return nothing)."""
    path = ROOT / doc
    lines = path.read_text().split("\n")
    problems, edits = [], []
    with scratch() as d:
        cwd = Path(d)
        for ex in examples(lines):
            if ex.kind == "console":
                for cmd, status, want, a, b in commands(ex.source):
                    rc, got = run_console(cmd, cwd)
                    where = f"{doc}:{ex.start + a}: $ {cmd.splitlines()[0]}"
                    if rc != status:
                        problems.append(f"{where}: exit {rc}, not {status}:\n" + "\n".join(got))
                    elif masked(got) != masked(want):
                        problems.append(_diff(where, want, got))
                    edits.append((ex.start + a, ex.start + b, got))
            else:
                rc, got = run_python("\n".join(ex.source) + "\n", cwd)
                where = f"{doc}:{ex.start}: python example"
                if rc != 0:
                    problems.append(f"{where}: exit {rc}:\n" + "\n".join(got))
                elif masked(got) != masked(ex.expected):
                    problems.append(_diff(where, ex.expected, got))
                edits.append((ex.out_start, ex.out_end, got))
    if update:
        for a, b, got in sorted(edits, reverse=True):
            lines[a:b] = got
        path.write_text("\n".join(lines))
        return []
    return problems


def _diff(where: str, want: list[str], got: list[str]) -> str:
    import difflib
    return f"{where}: output differs\n" + "\n".join(
        difflib.unified_diff(want, got, "documented", "printed", lineterm="", n=1))


@pytest.mark.parametrize("doc", DOCS)
def test_examples_print_what_the_document_says(doc):
    problems = check(doc)
    assert not problems, "\n\n".join(problems)


def test_the_readme_is_a_guide_not_a_log():
    """At most 300 lines; no issue numbers, no paths outside the repository, and "seed"
    only for a random seed (the papers are named by their titles or machines)."""
    for doc in ("README.md", *sorted(str(p.relative_to(ROOT))
                                     for p in (ROOT / "docs").glob("*.md"))):
        text = (ROOT / doc).read_text()
        if doc == "README.md":
            assert len(text.splitlines()) <= 300
        # (an issue number, not a figure such as "instruction issue 73.9 %")
        assert not re.search(r"\bissues? \d+(?![.\d]| ?%)", text), doc
        assert "../shared" not in text, doc
        bad = re.findall(r"(?i)\bseed(?:'s)?\s+0\d\d\b|\bthe seed's\b|\bthe seeds'\b|"
                         r"\bseed paper", text)
        assert not bad, (doc, bad)


def test_the_examples_are_found():
    """The harness reads the README's examples: a change of their fences cannot silently
    leave them unchecked."""
    lines = (ROOT / "README.md").read_text().split("\n")
    found = examples(lines)
    assert sum(e.kind == "python" for e in found) >= 1
    assert sum(len(commands(e.source)) for e in found if e.kind == "console") >= 8


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "--update":
        sys.exit("usage: python tests/test_readme.py --update [DOC ...]")
    for doc in args[1:] or DOCS:
        check(doc, update=True)
        print(f"{doc}: outputs written")


def test_a_measured_wall_time_is_masked_whatever_its_unit():
    from rlaccel.programs.summary import seconds_text
    line = "  simulator:   {} wall ({} in the simulation loop); 300 steps"
    texts = [line.format(seconds_text(t), seconds_text(t)) for t in (0.84, 24.4, 97, 3725)]
    assert len({masked([t])[0] for t in texts}) == 1
    assert masked(["  simulated:   87,134 cycles"]) == ["  simulated:   87,134 cycles"]

"""Hypothesis against the newer verbs' inputs: sweep specs, sweep databases, checkpoint files,
``dse`` manifests and ``report`` options. Each either works or is refused with an
RlaccelError (on the command line: exit 1 or 2 with a message), never another exception,
within a time budget, and a refused input is left as it was."""

from __future__ import annotations

import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rlaccel.util.errors import RlaccelError
from rlaccel.isa.machine import machine

from tests.util.tomlgen import mutated_table, toml_text, values

#: CPU seconds one fuzzed input may take (CPU, so a loaded machine's waits are no hang)
BUDGET_S = 10.0
DIR = Path(tempfile.mkdtemp(prefix="rlaccel-fuzz-verbs-"))
CARTPOLE = machine("adhdp").programs / "cartpole.toml"
SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

# ------------------------------------------------------------------------------ sweep specs

SPEC = {"description": "fuzz", "manifest": str(CARTPOLE),
        "set": {"trials": 1, "max_steps": 5},
        "axes": {"seed": {"range": [1, 3]}, "arch.machine.dtype": ["float64", "q6.10"],
                 "learning.Ic": {"range": [40, 60, 10], "format": "{}"},
                 "upd": {"zip": {"virtual_update": [False, True],
                                 "learning.Ia": [100, 50]}, "labels": ["a", "b"]}},
        "metrics": {"c": "cycles", "b": "sum(learning.steps_per_trial)"},
        "run": {"batch": 2},
        "plot": {"x": "arch.machine.dtype", "y": "c", "over": "seed"}}

formats = st.sampled_from(["{}", "q6.{}", "q{}.{}", "q6.{}{0}", "{0}", "{:q}", "{!r}", "{",
                           "}", "{x}", "{0.real}", "{:>99999999}", "", "{}{}", "%d"])
axis = st.one_of(values, st.fixed_dictionaries({"range": st.lists(st.integers(-5, 10 ** 6),
                                                                 max_size=4)},
                                               optional={"format": formats}),
                 st.fixed_dictionaries({"values": values}, optional={"format": formats}))


@SETTINGS
@given(mutated_table([SPEC]), st.dictionaries(st.sampled_from(
    ["seed", "learning.Ic", "arch.machine.lanes", "manifest", "x", "trials"]), axis,
    max_size=2), st.sampled_from([None, 1, 2]))
def test_a_sweep_spec_is_checked_or_refused(table, more, limit):
    """Parsing and validating a hostile spec (first ``limit`` points) raises a SweepError or
    another RlaccelError, or gives points whose count matches the axes."""
    from rlaccel.sweep.spec import MAX_POINTS, parse_spec
    if isinstance(table.get("axes"), dict):
        table["axes"].update(more)
    start = time.process_time()
    try:
        spec = parse_spec(toml_text(table), DIR / "spec.toml")
        assert spec.size <= MAX_POINTS
        assert len(spec.points(limit or 2)) == min(limit or 2, spec.size)
        spec.validate(limit=limit or 2)
    except RlaccelError as exc:
        assert str(exc).strip()
    assert time.process_time() - start < BUDGET_S


# -------------------------------------------------------------------------- sweep databases

def _database() -> bytes:
    from rlaccel.sweep.spec import parse_spec
    from rlaccel.sweep.store import Store
    d = Path(tempfile.mkdtemp(dir=DIR))
    spec = parse_spec(f'manifest = "{CARTPOLE}"\n[axes]\nseed = [1, 2, 3]\n[metrics]\n'
                      f'c = "cycles"\n', d / "spec.toml")
    with Store.open(d / "s.sqlite", spec) as st_:
        st_.record([{"index": i, "status": "done", "metrics": {"c": i}, "error": None,
                     "wall_s": 0.5, "arch": "adhdp", "version": "0", "binary_sha256": "x",
                     "worker": "w"} for i in range(2)])
    return (d / "s.sqlite").read_bytes()


DATABASE = _database()
COLUMNS = ["key", "coords", "config", "status", "metrics", "error", "arch", "version",
           "binary_sha256", "timing"]
cells = st.one_of(st.none(), st.integers(-(1 << 63), (1 << 63) - 1), st.floats(),
                  st.text(max_size=20), st.binary(max_size=8),
                  st.sampled_from(["{}", "[]", "{", "null", '{"a": [1, {"b": 2}]}', "done",
                                   "failed", "pending", '"x"', "1e999", '{"wall_s": "x"}',
                                   '{"worker": 3}', '{"finished_at": []}']))


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(COLUMNS), st.integers(0, 2), cells), max_size=4),
       st.lists(st.tuples(st.sampled_from(["axes", "metrics", "digest", "spec_text",
                                           "spec_path"]), cells), max_size=2),
       st.lists(st.tuples(st.integers(0, len(DATABASE) - 1), st.integers(0, 255)),
                max_size=3))
def test_a_damaged_sweep_database_is_shown_or_refused(updates, meta, flips):
    """``sweep show`` (and its CSV) on a database whose cells, meta values or bytes were
    changed: the table, or a SweepError naming the file; the file is never changed."""
    from rlaccel.sweep.cli import _csv
    from rlaccel.sweep.store import open_existing
    d = Path(tempfile.mkdtemp(dir=DIR))
    db = d / "s.sqlite"
    db.write_bytes(DATABASE)
    con = sqlite3.connect(db)
    con.execute("PRAGMA ignore_check_constraints = 1")
    for col, idx, v in updates:
        try:
            con.execute(f"UPDATE points SET {col} = ? WHERE idx = ?", (v, idx))
        except sqlite3.Error:
            pass
    for key, v in meta:
        try:
            con.execute("UPDATE meta SET value = ? WHERE key = ?", (v, key))
        except sqlite3.Error:
            pass
    con.commit()
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    blob = bytearray(db.read_bytes())
    for at, b in flips:
        if at < len(blob):
            blob[at] = b
    db.write_bytes(bytes(blob))
    try:
        with open_existing(db) as store:
            rows = store.rows()
            axes, metrics = store.meta_json("axes", list, []), store.meta_json("metrics",
                                                                               dict, {})
            store.counts()
        _csv(rows, axes, list(metrics))
    except RlaccelError as exc:
        assert str(exc).startswith(f"{db}: ")
    assert db.read_bytes() == bytes(blob)
    assert sorted(p.name for p in d.iterdir()) == ["s.sqlite"]


# ------------------------------------------------------------------------------ checkpoints

def _checkpoint() -> bytes:
    from rlaccel.programs import checkpoint as ck
    f = DIR / "c.ckpt"
    ck.write(f, {"manifest": "m.toml", "seed": 1}, {"x": 1, "y": [1.5, None]},
             {"a": np.arange(6, dtype=np.int64).reshape(2, 3), "b": np.ones(3, np.float32)})
    return f.read_bytes()


CHECKPOINT = _checkpoint()


@SETTINGS
@given(st.one_of(
    st.binary(max_size=300),
    st.lists(st.tuples(st.integers(0, len(CHECKPOINT) - 1), st.integers(0, 255)),
             min_size=1, max_size=4).map(lambda fl: _flip(CHECKPOINT, fl)),
    st.integers(0, len(CHECKPOINT)).map(lambda n: CHECKPOINT[:n])))
def test_a_hostile_checkpoint_file_is_read_or_refused(blob):
    """A checkpoint's reader on random, truncated and bit-flipped files: a CheckpointError
    naming the file, never another exception, nothing executed."""
    from rlaccel.programs import checkpoint as ck
    f = DIR / "h.ckpt"
    f.write_bytes(blob)
    try:
        ck.read(f)
    except RlaccelError as exc:
        assert str(exc).startswith(f"{f}: ")


def _flip(blob: bytes, flips) -> bytes:
    out = bytearray(blob)
    for at, b in flips:
        out[at] = b
    return bytes(out)


# ------------------------------------------------------------------------------------- dse

MADDPG = machine("maddpg").programs / "speaker_listener.toml"
dse_keys = st.sampled_from(["dse.f", "dse.search", "learning.batch", "learning.hidden",
                            "learning.adam_beta2", "learning.gamma", "environment", "arch",
                            "dse.bogus", "episodes"])
dse_values = st.one_of(st.integers(-5, 100), st.integers(-(1 << 70), 1 << 70),
                       st.sampled_from(["nan", "inf", '"base"', '"latency"', '"nope"',
                                        "[64, 64]", "[100000, 100000]", "[0, 1]",
                                        "[1, 2, 3]", "1.5", "1e30", '"maddpg-pp"', "true",
                                        str(10 ** 6), str(10 ** 12)]))


@SETTINGS
@given(st.lists(st.tuples(dse_keys, dse_values), min_size=1, max_size=3))
def test_dse_explores_or_refuses(sets):
    """``dse maddpg`` with hostile overrides: a design that fits the device, or an
    RlaccelError (the rules ``run`` applies), within the budget."""
    from rlaccel.machines.maddpg.dse import explore_manifest
    start = time.process_time()
    try:
        d = explore_manifest(MADDPG, [f"{k}={v}" for k, v in sets])
    except RlaccelError as exc:
        assert str(exc).strip()
    else:
        for s in d["slr"]:
            assert s["dsp_used"] < s["dsp_budget"] or not s["dsp_used"]
    assert time.process_time() - start < BUDGET_S


# ---------------------------------------------------------------------------- report options

REPORTS = ["adhdp", "fixar", "darl", "maddpg", "learninggroup"]
options = st.sampled_from(["-o", "--trials", "--sizes", "--batches", "--train-steps",
                           "--manifest", "--stages", "--learning", "--reuse", "--rounds",
                           "--envs", "--set", "--draws", "--agents", "--episodes", "--seed",
                           "--groups", "--cpu-seeds", "-q", "--arch-set", "--bogus"])
words = st.one_of(st.text(max_size=8), st.sampled_from(
    ["0", "-1", "1", "3", str(1 << 70), "1e3", "nan", "", "out", "/dev/zero", "x.toml",
     "nope=1", "cartpole", "simple_tag_v3", "machine.lanes=0"]))


@SETTINGS
@given(st.sampled_from(REPORTS), st.lists(st.tuples(options, words), max_size=4))
def test_report_options_parse_or_are_usage_errors(machine_name, opts):
    """Every report's options: parsed (then its inputs and output directory checked, as the
    command does before any work), or a usage error (exit 2) -- never a traceback."""
    from rlaccel.cli import build_parser
    from rlaccel.programs.plugin import load_plugin
    from rlaccel.util.files import check_output_dir
    argv = ["report", machine_name] + [x for o, w in opts for x in (o, w)]
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        assert exc.code == 2
        return
    plugin = load_plugin(machine_name)
    try:
        check_output_dir(str(DIR / "rep" / (args.output or "x")),
                         inputs=plugin.report_inputs(args), writes=plugin.report_writes)
    except RlaccelError as exc:
        assert str(exc).strip()

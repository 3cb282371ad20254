"""Checkpoint and resume of one run: a run killed (SIGKILL) after a checkpoint and resumed
from it ends with the uninterrupted run's memories and report, bit for bit (wall-clock
fields aside); a checkpoint of another run, or a file that is not one, is refused."""

import copy
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rlaccel.cli import main
from rlaccel.programs.checkpoint import CheckpointError, read, run_checkpointed, write
from rlaccel.programs.runner import _Setup, run
from rlaccel.isa.machine import machine

CARTPOLE = machine("adhdp").programs / "cartpole.toml"
OVER = ["stop_on_success=false"]
SEED, TRIALS, EVERY = 3, 10, 1000          # about 10,000 exchanges: the plant balances


def _setup(seed=SEED):
    return _Setup(CARTPOLE, OVER, arch=None, seed=seed, trace=None, progress=None,
                  datapath=None, kernels="compiled", options={"trials": TRIALS})


def _fingerprint(seed=SEED):
    return {"run": "test", "seed": seed}


def _clean(report: dict) -> dict:
    r = copy.deepcopy(report)
    r.pop("timing")                   # wall-clock and host-measured figures
    r["sim"].pop("checkpoint", None)  # where a run resumed
    return r


def _memories(setup) -> dict:
    return {s: m.data.copy() for s, m in setup.platform.agent.memories.items()}


def test_a_killed_run_resumes_bit_for_bit(tmp_path):
    ck = tmp_path / "run.ckpt"
    child = ("import sys; from rlaccel.programs.checkpoint import run_checkpointed; "
             "from tests.programs.test_checkpoint import _setup, _fingerprint; "
             f"run_checkpointed(_setup(), sys.argv[1], {EVERY}, _fingerprint())")
    proc = subprocess.Popen([sys.executable, "-c", child, str(ck)], start_new_session=True,
                            cwd=Path(__file__).parents[2], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        while not ck.exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no checkpoint within 240 s"
            time.sleep(0.005)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    saved = read(ck).get("exchanges", int)
    assert saved % EVERY == 0 and saved >= EVERY

    resumed = _setup()
    res = run_checkpointed(resumed, ck, EVERY, _fingerprint())
    assert resumed.checkpoint["resumed_at"] == saved > 0
    assert not ck.exists()                             # a finished run removes it
    whole = _setup()
    ref = whole.platform.run()
    assert resumed.checkpoint["exchanges"] == whole.platform.agent.link.exchanges
    mine, theirs = _memories(resumed), _memories(whole)
    assert all(np.array_equal(mine[s], theirs[s]) for s in theirs)       # weights and all
    assert _clean(resumed.report(res)) == _clean(whole.report(ref))
    assert sum(resumed.r.state.steps) > 5 * 1000       # the plant balanced: a long run


def test_checkpoints_along_the_way_change_nothing(tmp_path):
    a = run(CARTPOLE, OVER, seed=2, trials=4)
    b = run(CARTPOLE, OVER, seed=2, trials=4, checkpoint=tmp_path / "c.ckpt",
            checkpoint_every=5)
    assert b["sim"]["checkpoint"]["saves"] >= 5 and b["sim"]["checkpoint"]["resumed_at"] is None
    assert _clean(a) == _clean(b)


def test_a_checkpoint_of_another_run_or_no_checkpoint_is_refused(tmp_path):
    ck = tmp_path / "c.ckpt"
    s = _setup()
    write(ck, _fingerprint(seed=9), {"exchanges": 1}, {})
    with pytest.raises(CheckpointError, match=r"made by another run \(it differs in seed\); "
                                              r"delete it to start afresh"):
        run_checkpointed(s, ck, EVERY, _fingerprint())
    ck.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not an rlaccel checkpoint"):
        run_checkpointed(s, ck, EVERY, _fingerprint())
    with pytest.raises(CheckpointError, match="--checkpoint-every must be at least 1, not 0"):
        run_checkpointed(s, tmp_path / "n.ckpt", 0, _fingerprint())


def test_command_line(tmp_path, capsys):
    ck = tmp_path / "c.ckpt"
    assert main(["run", str(CARTPOLE), "--trials", "2", "-q", "--checkpoint", str(ck),
                 "--checkpoint-every", "50"]) == 0
    assert "learning: 2 trials" in capsys.readouterr().out and not ck.exists()
    assert main(["run", str(CARTPOLE), "--trials", "1", "--checkpoint-every", "5"]) == 1
    assert "--checkpoint-every needs --checkpoint FILE" in capsys.readouterr().err
    assert main(["run", str(CARTPOLE), "--trials", "1", "--checkpoint", str(ck), "--trace",
                 str(tmp_path / "t.json")]) == 1
    assert "does not take --trace" in capsys.readouterr().err
    assert main(["run", str(CARTPOLE), "--seeds", "1-2", "--checkpoint", str(ck)]) == 1
    assert "does not take --checkpoint" in capsys.readouterr().err


def test_what_cannot_be_saved_is_refused_before_the_run(tmp_path, capsys):
    """A trace or the reference kernels (the compiled loop holds the state a checkpoint
    saves), or a host without the Checkpointable pair; a machine of several agents is
    not refused (tests/machines/darl and maddpg resume them)."""
    ck = tmp_path / "c.ckpt"
    assert main(["run", str(CARTPOLE), "--trials", "1", "--checkpoint", str(ck),
                 "--reference-kernels"]) == 1
    assert "does not take --trace, --rtl or --reference-kernels" in capsys.readouterr().err
    s = _setup()
    s.platform.agent.link.host = object()
    with pytest.raises(CheckpointError, match=r"^--checkpoint: the adhdp machine's host cannot "
                                              r"be saved \(it has no checkpoint_state and "
                                              r"restore\); run without --checkpoint$"):
        run_checkpointed(s, ck, EVERY, _fingerprint())
    assert not ck.exists()
    darl = machine("darl").programs / "cartpole.toml"
    assert main(["run", str(darl), "--set", "agents=2", "--set", "stages=1", "--set",
                 "learning.d=64", "-q", "--checkpoint", str(ck), "--checkpoint-every",
                 "3"]) == 0
    assert not ck.exists()

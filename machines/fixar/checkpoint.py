"""Checkpoint and resume a simulated FIXAR run at a time step (issue 8's long learning runs).

The platform's checkpoints (:mod:`rlaccel.programs.checkpoint`) need the compiled loop, which
the ddpg family's instructions do not have (their cost and results are computed in Python),
so a FIXAR run saves itself from its host driver instead. Every ``every`` environment steps,
at the top of the time-step loop, while the program waits at its ``step:`` exchange, the file
is replaced (atomically) by:

* the host driver (:class:`~.driver.FixarDriver`): its step and update counts, QAT step,
  and the host (:class:`~.host.DdpgHost`: the environment's whole state, the replay
  buffer's filled rows, the random generators, the learning curve so far);
* every memory of the machine (weights, targets, gradients, Adam's moments, activations);
* the ddpg family's state (:class:`~rlaccel.machines.fixar.tlm.state.FixarState`): the QAT
  monitors and quantisers and the PRNG's registers;
* a fingerprint of the run (the manifest's name and contents, overrides, architecture, seed,
  steps, the binary's sha256 without its source paths).

A resumed run builds the machine afresh, answers the program's first exchange as usual (the
program loads the initial weights), and at the second -- the program now waits at the same
``step:`` exchange as when the file was written -- puts the saved memories and family state
into the machine and continues the loop from the saved step. Training continues bit for bit
(tests/machines/fixar/test_checkpoint.py): every later action, weight and evaluation return
equals the uninterrupted run's. The accelerator figures of the report (cycles, IPS,
utilisation, energy) and the host's measured times cover the resumed part only; the learning
curve covers the whole run. A checkpoint is a pickle: load only your own.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import numpy as np

from rlaccel.util.errors import RlaccelError
from rlaccel.util.files import atomic_write

__all__ = ["FixarCheckpointError", "Checkpointer", "FORMAT", "prepare", "run_resumable",
           "program_sha256"]

FORMAT = "rlaccel-fixar-checkpoint-1"
#: the family state's fields a checkpoint keeps (the weight operands are a cache)
_STATE = ("monitors", "qparams", "frozen_at", "prng")


class FixarCheckpointError(RlaccelError):
    """A checkpoint cannot be written or read, or belongs to another run."""


class Checkpointer:
    """Saves a driver's run to ``path`` every ``every`` environment steps and restores it.
    ``agent`` is the simulated agent whose memories and family state are saved."""

    def __init__(self, path, every: int, fingerprint: dict, agent=None) -> None:
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise FixarCheckpointError(f"checkpoint every must be at least 1 step, not "
                                       f"{every!r}")
        self.path = Path(path)
        if self.path.is_dir():
            raise FixarCheckpointError(f"{self.path}: is a folder; a checkpoint is a file")
        self.every, self.fingerprint, self.agent = every, fingerprint, agent
        self.saves = 0

    def due(self, t: int, resumed_at) -> bool:
        return t > 0 and t % self.every == 0 and t != resumed_at

    def save(self, driver) -> None:
        from rlaccel.machines.fixar.tlm.state import state_of
        agent = self.agent
        st = state_of(agent)
        state = {"format": FORMAT, "fingerprint": self.fingerprint, "t": driver.host.t,
                 "driver": driver.__getstate__(),
                 "memories": {s: m.data.copy() for s, m in agent.memories.items()},
                 "family": {k: getattr(st, k) for k in _STATE}}
        try:
            blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise FixarCheckpointError(f"{self.path}: the run cannot be saved ({exc})") from None
        atomic_write(self.path, blob, FixarCheckpointError)
        self.saves += 1

    def load(self) -> dict | None:
        """The saved state, None when there is no file; an error for a file of another run
        or one that is not a checkpoint."""
        if not self.path.exists():
            return None
        try:
            state = pickle.loads(self.path.read_bytes())
        except OSError as exc:
            raise FixarCheckpointError(f"{self.path}: cannot read the checkpoint: "
                                       f"{exc.strerror}") from None
        except Exception:  # noqa: BLE001 - any unpickling failure means "not a checkpoint"
            state = None
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise FixarCheckpointError(f"{self.path}: not a FIXAR checkpoint (give another "
                                       f"file, or delete this one)")
        theirs = state["fingerprint"]
        differ = [k for k in sorted(set(theirs) | set(self.fingerprint))
                  if theirs.get(k) != self.fingerprint.get(k)]
        if differ:
            raise FixarCheckpointError(f"{self.path}: the checkpoint was made by another run "
                                       f"(it differs in {', '.join(differ)}); delete it to "
                                       f"start afresh, or give another file")
        return state

    def restore_machine(self, state: dict) -> None:
        """Put the saved memories and family state into the (freshly initialised) agent."""
        from rlaccel.machines.fixar.tlm.state import state_of
        agent = self.agent
        for space, mem in agent.memories.items():
            saved = state["memories"].get(space)
            if saved is None or saved.shape != mem.data.shape:
                raise FixarCheckpointError(f"{self.path}: the checkpoint's {space} memory does "
                                           f"not fit this machine")
            np.copyto(mem.data, saved)
        st = state_of(agent)
        for k, v in state["family"].items():
            setattr(st, k, v)
        st.weights.clear()                  # prepared operands of the old weights

    def remove(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


def program_sha256(setup) -> str:
    """The sha256 of the run's binaries without their ``source`` metadata (which names the
    program's path): the same program assembled in another copy of the tree has the same."""
    from dataclasses import replace

    from rlaccel.assembler.rlb import dumps
    h = hashlib.sha256()
    for a in setup.asms:
        h.update(dumps(replace(a.binary, source={})))
    return h.hexdigest()


def prepare(manifest, overrides=None, *, checkpoint, every: int = 5000, arch=None, seed=None,
            steps=None, progress=None):
    """The runner's setup of a FIXAR manifest with a :class:`Checkpointer` on its driver,
    resumed from ``checkpoint`` when the file holds a checkpoint of this run."""
    from rlaccel.programs.runner import _Setup
    options = {} if steps is None else {"steps": steps}
    s = _Setup(manifest, overrides, arch=arch, seed=seed, trace=None, progress=progress,
               datapath=None, kernels="compiled", options=options)
    if s.plugin.machine != "fixar":
        raise FixarCheckpointError(f"{manifest}: a {s.plugin.machine} manifest; these "
                                   f"checkpoints are the fixar family's (rlaccel run "
                                   f"--checkpoint for the others)")
    # the manifest by name and contents and the program by its binary without the source
    # paths: a run may resume from another copy of the tree
    text = Path(manifest).read_bytes()
    fingerprint = {"manifest": [Path(manifest).name, hashlib.sha256(text).hexdigest()],
                   "overrides": list(overrides
                   or []), "arch": s.arch.name, "seed": s.m["seed"], "steps": s.m["steps"],
                   "program_sha256": program_sha256(s)}
    drv = s.r.state
    ck = drv.checkpointer = Checkpointer(checkpoint, every, fingerprint,
                                         s.platform.agents[0])
    state = ck.load()
    if state is not None:
        drv.resume(state)
    return s


def run_resumable(manifest, overrides=None, *, checkpoint, every: int = 5000, arch=None,
                  seed=None, steps=None, progress=None, json_path=None) -> dict:
    """:func:`rlaccel.programs.runner.run` for a FIXAR manifest with checkpoints in
    ``checkpoint`` every ``every`` environment steps, resuming from it if it holds one of this
    run; the finished run removes it. Returns the report (``report["checkpoint"]``: the file,
    the step resumed at and the saves)."""
    from rlaccel.programs.runner import json_text
    from rlaccel.util.files import check_outputs, save_or_rescue
    check_outputs({"--json": json_path, "--checkpoint": checkpoint},
                  {"the manifest": manifest})
    s = prepare(manifest, overrides, checkpoint=checkpoint, every=every, arch=arch, seed=seed,
                steps=steps, progress=progress)
    res = s.platform.run()
    s.tick()
    report = s.report(res)
    drv = s.r.state
    ck = drv.checkpointer
    report["checkpoint"] = {"file": str(ck.path), "every": every, "resumed_at": drv.resumed_at,
                            "saves": ck.saves}
    save_or_rescue([(json_path, json_text(report) if json_path else None)])
    ck.remove()
    return report

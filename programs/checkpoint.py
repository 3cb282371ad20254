"""Checkpoint and resume one long run, bit for bit.

    rlaccel run machines/adhdp/programs/triple_link.toml --trials 3000 --checkpoint out/tl.ckpt \\
        --checkpoint-every 10000

With a checkpoint file the run goes through the compiled loop as a batch of one member
(:class:`rlaccel.tlm.fast.batch.Batch`, whose members equal their single runs bit for bit).
Every ``every`` host exchanges, at an exchange and before the host answers it, the file is
replaced (atomically) by the whole state of the run at that instant:

* the machine: the controller's state tables (PC, cycle, pending results, loop counters,
  units' free cycles, per-PC counts and cycles, marks), every memory's words and traffic
  counters, the saturation count, and the host exchanges so far with the link's cycles per
  exchange;
* the family's :class:`~rlaccel.programs.plugin.Run`, pickled whole: its hosts with their
  environments, trial bookkeeping, replay buffers and random generators;
* a fingerprint of the run (manifest, overrides, architecture, seed, options and the
  binary's sha256).

A later run given the same file finds it, checks the fingerprint and continues from it; the
finished run removes the file (so the same command then starts afresh). Its report equals
the uninterrupted run's in every field but wall-clock times. A checkpoint is a pickle: load
only your own.

What a batch cannot run cannot be checkpointed: machines of several agents, a trace, the RTL
datapath, the Python loop, instructions without a compiled kernel (the error says so).
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np

from rlaccel.util.errors import RlaccelError
from rlaccel.util.files import atomic_write

__all__ = ["CheckpointError", "run_checkpointed", "FORMAT"]

FORMAT = "rlaccel-checkpoint-1"
_TABLES = ("ST", "PEND", "CTR", "UF", "STATS", "MK")


class CheckpointError(RlaccelError):
    """A checkpoint file cannot be written, read, or belongs to another run."""


def _load(path: Path, fingerprint: dict) -> dict:
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read the checkpoint: {exc.strerror}") from None
    try:
        state = pickle.loads(blob)
    except Exception:  # noqa: BLE001 - any unpickling failure means "not a checkpoint"
        state = None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not an rlaccel checkpoint (give another --checkpoint "
                              f"file, or delete this one)")
    theirs = state["fingerprint"]
    differ = [k for k in sorted(set(theirs) | set(fingerprint))
              if theirs.get(k) != fingerprint.get(k)]
    if differ:
        raise CheckpointError(f"{path}: the checkpoint was made by another run (it differs in "
                              f"{', '.join(differ)}); delete it to start afresh, or give "
                              f"another --checkpoint file")
    return state


_COUNTERS = ("reads", "writes", "words_read", "words_written")


def _counters(stats) -> dict:
    return {name: getattr(stats, name) for name in _COUNTERS}


class _Checkpoints:
    """The batch's host: asks the member's own host, and writes the checkpoint every
    ``every`` exchanges (before the exchange that completes the period is answered)."""

    def __init__(self, batch, setup, path: Path, every: int, fingerprint: dict):
        self.batch, self.setup = batch, setup
        self.inner = batch.hosts
        self.path, self.every, self.fingerprint = path, every, fingerprint
        self.count = 0                 # exchanges answered, over every session of the run
        self.resumed_at = None
        self.saves = 0
        self.per_exchange = None       # (nin, nout, up, down, cycles) of the link

    def exchange(self, members, outs, nin):
        if self.per_exchange is None:
            link = self.setup.platform.agent.link
            nout = outs.shape[1]
            up, down = link.to_host.delay(nout), link.to_device.delay(nin)
            self.per_exchange = (nin, nout, up, down, up + link.host_cycles + down)
        if self.count and self.count % self.every == 0 and self.count != self.resumed_at:
            self.save()
        reply = self.inner.exchange(members, outs, nin)
        self.count += 1
        self.setup.tick()
        return reply

    def close(self):
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()

    # ---- the state ----
    def save(self) -> None:
        agent = self.setup.platform.agent
        state = {"format": FORMAT, "fingerprint": self.fingerprint, "exchanges": self.count,
                 "per_exchange": self.per_exchange,
                 "tables": {n: getattr(self.batch, n).copy() for n in _TABLES},
                 "memories": {s: m.data.copy() for s, m in agent.memories.items()},
                 "memory_stats": {s: _counters(m.stats) for s, m in agent.memories.items()},
                 "saturations": agent.saturations.saturations,
                 "run": self.setup.r}
        try:
            blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise CheckpointError(f"{self.path}: the {self.setup.plugin.machine} machine's "
                                  f"host cannot be saved ({exc}); run without --checkpoint"
                                  ) from None
        atomic_write(self.path, blob, CheckpointError)
        self.saves += 1

    def restore(self, state: dict) -> None:
        """Put a saved state into the freshly built batch and platform."""
        pl, b = self.setup.platform, self.batch
        agent = pl.agent
        for name in _TABLES:
            saved, table = state["tables"][name], getattr(b, name)
            if saved.shape != table.shape:
                raise CheckpointError(f"{self.path}: the checkpoint's {name} table has shape "
                                      f"{saved.shape}, this machine's {table.shape}")
            np.copyto(table, saved)
        for space, mem in agent.memories.items():
            np.copyto(mem.data, state["memories"][space])
            for name, value in state["memory_stats"][space].items():
                setattr(mem.stats, name, value)
        agent.saturations.saturations = state["saturations"]
        agent.dt.saturations += state["saturations"]
        run = state["run"]
        self.setup.r = run
        link = agent.link
        link.host = run.hosts
        link.timeline = getattr(run.hosts, "timeline", None) or link.timeline
        self.inner = type(self.inner)([pl])             # asks the restored host
        n = self.count = self.resumed_at = state["exchanges"]
        self.per_exchange = state["per_exchange"]
        # what the batch adds for its own exchanges when it ends, for the earlier ones
        nin, nout, up, down, cycles = self.per_exchange
        agent.memories["unified"].stats.writes += n
        agent.memories["unified"].stats.words_written += n * nin
        link.exchanges += n
        link.words_out += n * nout
        link.words_in += n * nin
        link.cycles += n * cycles
        link.timeline.transfer_cycles["to_host"] += n * up
        link.timeline.transfer_cycles["to_device"] += n * down
        agent.controller.host_cycles += n * cycles


def run_checkpointed(setup, path: str | os.PathLike, every: int, fingerprint: dict):
    """Run a prepared run (the runner's setup) with checkpoints in ``path`` every ``every``
    host exchanges, resuming from ``path`` if it holds one; returns the platform's
    Results and sets ``setup.checkpoint`` (resumed at, saves)."""
    from rlaccel.tlm.fast.batch import Batch
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise CheckpointError(f"--checkpoint-every must be at least 1, not {every!r}")
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"{path}: is a folder; --checkpoint names a file")
    state = _load(path, fingerprint) if path.exists() else None
    try:
        batch = Batch([setup.platform])
    except RlaccelError as exc:
        raise CheckpointError(f"--checkpoint runs the compiled loop as a batch of one: "
                              f"{exc}") from None
    hook = _Checkpoints(batch, setup, path, every, fingerprint)
    batch.hosts = hook
    if state is not None:
        hook.restore(state)
    results = batch.run()[0]
    setup.checkpoint = {"file": str(path), "every": every, "resumed_at": hook.resumed_at,
                        "saves": hook.saves, "exchanges": hook.count}
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise CheckpointError(f"{path}: the run finished but its checkpoint cannot be "
                              f"removed: {exc.strerror}") from None
    return results

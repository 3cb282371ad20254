"""Checkpoint and resume one run, bit for bit, in a file of numbers and text that cannot run
code.

    rlaccel run machines/adhdp/programs/triple_link.toml --trials 3000 --checkpoint out/tl.ckpt \\
        --checkpoint-every 10000

With a checkpoint file every agent of the run goes through the compiled loop
(:func:`rlaccel.tlm.fast.engine.process`, the loop of every run whose number format has
compiled tables; instructions without a kernel are handed back to Python one by one), which
keeps the controller's whole state in arrays Python owns whenever the loop hands an
instruction back. Every ``every`` host exchanges (of all the agents), at an exchange and
before the host answers it, the file is replaced (atomically) by the run at that instant:

* each agent: the controller's tables (PC, cycle, pending results, loop counters, units'
  free cycles, per-PC counts, cycles and stalls, marks), the units by name with their free
  and busy cycles, every memory's words and traffic counters, the saturation count, the
  host-link and synchronisation cycles and the data-dependent instructions' unit cycles and
  action counts;
* each agent's host link: its exchanges, words and cycles, and the host's time line;
* each agent's host, through its :class:`Checkpointable` pair of methods: whatever the host
  and its families' per-agent state need to go on (environments, replay buffers, random
  generators, counters, learning curves). Hosts that share state (DARL's, MADDPG's) save
  it with agent 0's part and restore it first.

A machine of several agents is saved only at an instant where it can be written whole: the
agent being answered waits at its host exchange and every other agent waits in its quantum
keeper (at a quantum boundary, or before a host exchange or a synchronisation), so that no
agent is inside a synchronisation with the others (an all-reduce, a ring exchange, a
barrier) and nothing is in flight on the interconnect. Each agent's keeper tells when its
wait ends and in which order SimPy queued it; the file keeps the answering agent, the others
with their cycles in waking order, and the interconnect's words and hops. An exchange at
which the machine or a host cannot be saved (a host's ``checkpoint_state`` returns None) is
passed over and the next one tried. A resumed run starts the answering agent's process
first (it re-enters its host exchange), then one per waiting agent that waits until its
cycle in the saved order and goes on in the compiled loop: SimPy time, the agents' meeting
order and the order the hosts are asked are the uninterrupted run's.

A later run given the same file reads it, checks it and continues from it; the finished run
removes the file (so the same command then starts afresh). The resumed run's report equals
the uninterrupted run's in every field but the wall-clock ones.

**The file** (format version :data:`FORMAT_VERSION`)::

    magic        b"rlaccel-checkpoint\\n"
    version      uint32, little-endian
    header size  uint64, little-endian
    header       UTF-8 JSON: {"identity": {...}, "fields": {...}, "data_bytes": N,
                              "arrays": [{"name", "dtype", "shape", "offset", "nbytes"}, ...]}
    data         the arrays' bytes, C order, little-endian, at their offsets
    digest       SHA-256 of every byte before it (32 bytes)

Arrays are booleans, integers or floats (:data:`DTYPES`); everything else is JSON (with
``NaN`` and ``Infinity`` as Python writes them). Reading checks, before anything is restored,
the magic, the version, the length, the digest, the header's structure and the run's
identity (:func:`identity`: manifest path and contents, overrides, architecture, seed,
options, the binary's sha256 and the rlaccel version), and refuses a file that is foreign,
of an older or newer format, truncated, damaged, malformed or of another run with a message
naming the file and what is wrong. Nothing in the file is ever executed: a file of the
pickle format of earlier versions is recognised by its bytes and refused unread. The digest
finds damage, not forgery: a file rewritten with a fresh digest can change the state it
restores (each value is checked for its kind and shape, so it cannot break the simulator),
never run code.

The fields are ``exchanges``, ``machine`` and ``host``: for one agent, that agent's part
and its host's; for several, ``machine`` holds ``answering``, ``waiting`` (``[[agent,
cycle], ...]``), ``interconnect`` and each agent's part under ``agentK``, and ``host`` each
host's part under ``agentK`` (arrays named after their part: ``machine.agent1.ST``).

What cannot be checkpointed is refused before the run with what to do instead: a trace, the
RTL datapath, ``--reference-kernels``, a host without :class:`Checkpointable`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import struct
import time
from pathlib import Path
from typing import Protocol

import numpy as np

from rlaccel.tlm.core.quantum import QuantumKeeper
from rlaccel.util.errors import RlaccelError
from rlaccel.util.files import atomic_output, read_bytes
from rlaccel.util.numbers import is_whole

__all__ = ["CheckpointError", "Checkpointable", "Saved", "run_checkpointed", "identity",
           "read", "write", "nest", "rng_state", "py_random_state", "env_state",
           "set_env_state", "FORMAT_VERSION", "MAGIC", "DTYPES"]

MAGIC = b"rlaccel-checkpoint\n"
FORMAT_VERSION = 2
#: the dtypes an array of a checkpoint may have (numpy's ``dtype.str``)
DTYPES = frozenset({"|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2",
                    "<f4", "<f8"})
_PREFIX = struct.Struct("<IQ")              # version, header size
_DIGEST = 32
#: the format tags of the pickles older versions wrote (recognised, never unpickled)
_OLD_TAGS = (b"rlaccel-checkpoint-1", b"rlaccel-fixar-checkpoint-1")
_AGAIN = "delete it to start afresh, or give another --checkpoint file"
#: the controller's tables of the compiled loop a checkpoint holds
_TABLES = ("ST", "PEND", "CTR", "STATS", "MK")


class CheckpointError(RlaccelError):
    """A checkpoint file cannot be written, read, or belongs to another run."""


class Checkpointable(Protocol):
    """What a machine's host (the one each agent's host link asks, ``Run.hosts``) provides
    for checkpoints: the machine-specific part of one mechanism. With several agents each
    agent's host is asked for its agent, in agent order; what the hosts share goes with
    agent 0's part (restored first)."""

    #: the entries of ``agent.state`` (its families' per-agent state) the two methods save
    #: and restore; a run whose agent keeps any other is refused
    checkpoint_agent_state: tuple[str, ...]

    def checkpoint_state(self, agent) -> tuple[dict, dict] | None:
        """The host's state, and that of ``agent.state``'s entries it covers, before it
        answers the exchange the machine waits at: ``(arrays, fields)``, named numpy arrays
        and a JSON-able dict (:func:`nest` puts a part's pair under a name). None when it
        cannot be saved at this exchange (the next exchange is tried)."""

    def restore(self, agent, saved: "Saved") -> None:
        """Put the state :meth:`checkpoint_state` returned into this freshly built host and
        agent (``saved`` reads it back, checked)."""


# ---- the parts ----------------------------------------------------------------------------

def nest(name: str, part: tuple[dict, dict], arrays: dict, fields: dict) -> None:
    """Put a part's ``(arrays, fields)`` under ``name``: its arrays as ``name.ARRAY``, its
    fields as ``fields[name]`` (read back by :meth:`Saved.part`)."""
    sub_arrays, sub_fields = part
    for key, a in sub_arrays.items():
        arrays[f"{name}.{key}"] = a
    fields[name] = sub_fields


def _kind(v) -> str:
    if v is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(v), type(v).__name__)


class Saved:
    """One part of a checkpoint as it is read back: its JSON fields and named arrays, each
    taken with the kind its reader expects, so that a file that does not fit the run is
    refused with the name of the field rather than failing inside the restore."""

    def __init__(self, path, fields: dict, arrays: dict, where: str = "",
                 used: set | None = None, identity: dict | None = None):
        self.path, self.fields, self.arrays, self.where = str(path), fields, arrays, where
        self.used = set() if used is None else used
        self.identity = identity

    def unfit(self, what: str) -> CheckpointError:
        """The error for a checkpoint whose ``what`` does not fit this run."""
        return CheckpointError(f"{self.path}: the checkpoint does not fit this run: {what}; "
                               f"{_AGAIN}")

    def _raw(self, key: str):
        if key not in self.fields:
            raise self.unfit(f"it has no {self.where}{key}")
        return self.fields[key]

    def get(self, key: str, kind: type, *, none: bool = False, lo=None, hi=None):
        """The field ``key``, which must be of ``kind`` (bool, int, float, str, list or dict;
        a bool is not an int), or None when ``none``; ``lo`` and ``hi`` bound a number."""
        v = self._raw(key)
        if v is None and none:
            return None
        if type(v) is not kind:
            raise self.unfit(f"{self.where}{key} is {_kind(v)}, not {_kind(kind())}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            span = f"at least {lo}" if hi is None else f"between {lo} and {hi}"
            raise self.unfit(f"{self.where}{key} = {v!r} (must be {span})")
        return v

    def array(self, key: str, dtype=None, shape: tuple | None = None) -> np.ndarray:
        """The array ``key`` (a fresh, writable copy); ``dtype`` and ``shape`` (None in it:
        any length) must match."""
        name = self.where + key
        a = self.arrays.get(name)
        if a is None:
            raise self.unfit(f"it has no array {name}")
        if dtype is not None and a.dtype != np.dtype(dtype):
            raise self.unfit(f"the array {name} is {a.dtype}, not {np.dtype(dtype)}")
        if shape is not None and (a.ndim != len(shape) or any(
                s is not None and s != n for s, n in zip(shape, a.shape))):
            want = "x".join("N" if s is None else str(s) for s in shape) or "a scalar"
            raise self.unfit(f"the array {name} has shape {a.shape}, not {want}")
        self.used.add(name)
        return a

    def part(self, key: str) -> "Saved":
        """The part :func:`nest` put under ``key``."""
        sub = self.get(key, dict)
        return Saved(self.path, sub, self.arrays, f"{self.where}{key}.", self.used)

    def rng(self, key: str, gen: np.random.Generator) -> None:
        """Set numpy generator ``gen`` to the state :func:`rng_state` saved under ``key``."""
        state = self.get(key, dict)
        name = type(gen.bit_generator).__name__
        if state.get("bit_generator") != name:
            raise self.unfit(f"{self.where}{key} is the state of a "
                             f"{state.get('bit_generator')!r} generator, not {name}")
        try:
            gen.bit_generator.state = state
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise self.unfit(f"{self.where}{key} is not a {name} state ({exc})") from None

    def py_random(self, key: str, r) -> None:
        """Set ``random.Random`` ``r`` to the state :func:`py_random_state` saved."""
        v = self.get(key, list)
        try:
            version, words, gauss = v
            r.setstate((version, tuple(words), gauss))
        except (TypeError, ValueError, OverflowError) as exc:
            raise self.unfit(f"{self.where}{key} is not a Python random state ({exc})"
                             ) from None


def rng_state(gen: np.random.Generator) -> dict:
    """A numpy generator's state as JSON (its bit generator's ``state``)."""
    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v.tolist() if isinstance(v, np.ndarray) else v
    return plain(gen.bit_generator.state)


def py_random_state(r) -> list:
    """A ``random.Random``'s state as JSON."""
    version, words, gauss = r.getstate()
    return [version, list(words), gauss]


# ---- gymnasium environments ---------------------------------------------------------------

def env_state(env) -> tuple[dict, dict]:
    """What an episode in progress needs to continue bit for bit, as ``(arrays, fields)``:
    the plain attributes of the environment (a classic-control or plant ``state``, flags,
    counts; numpy values as arrays, keeping their dtype), its random generator, the time
    limit's step count and, for a MuJoCo environment, the simulator's whole integration state
    (``mj_getState``: time, positions, velocities, actuators, the solver's warm start)."""
    u = env.unwrapped
    arrays, attrs, scalars = {}, {}, []
    for k, v in vars(u).items():
        if k.startswith("__"):
            continue
        if isinstance(v, (np.ndarray, np.generic)):
            a = np.asarray(v)
            if a.dtype.kind not in "biuf":
                raise CheckpointError(f"{type(u).__name__}.{k}: an array of {a.dtype}, which "
                                      f"a checkpoint cannot hold")
            arrays[f"attr.{k}"] = a.copy()
            if isinstance(v, np.generic):
                scalars.append(k)
        elif v is None or type(v) in (bool, int, float, str):
            attrs[k] = v
    fields = {"attrs": attrs, "arrays": sorted(k[5:] for k in arrays), "scalars": scalars,
              "np_random": rng_state(u.np_random),
              "elapsed": getattr(env, "_elapsed_steps", None)}
    if hasattr(u, "data") and hasattr(u, "model"):
        import mujoco
        spec = mujoco.mjtState.mjSTATE_INTEGRATION
        st = np.empty(mujoco.mj_stateSize(u.model, spec), np.float64)
        mujoco.mj_getState(u.model, u.data, st, spec)
        arrays["mujoco"] = st
    return arrays, fields


def set_env_state(env, saved: Saved) -> None:
    """Put :func:`env_state`'s snapshot into ``env`` (made with the same id and arguments);
    resets it first so that its wrappers accept the next step."""
    env.reset()
    u = env.unwrapped
    known = set(vars(u))

    def check(k):
        if not isinstance(k, str) or k.startswith("__") or k not in known:
            raise saved.unfit(f"the environment {type(u).__name__} has no attribute {k!r}")

    for k, v in saved.get("attrs", dict).items():
        check(k)
        if not (v is None or type(v) in (bool, int, float, str)):
            raise saved.unfit(f"the environment's {k} is {_kind(v)}")
        setattr(u, k, v)
    scalars = saved.get("scalars", list)
    for k in saved.get("arrays", list):
        check(k)
        a = saved.array(f"attr.{k}")
        setattr(u, k, a[()] if k in scalars else a)
    saved.rng("np_random", u.np_random)
    elapsed = saved.get("elapsed", int, none=True, lo=0)
    if elapsed is not None:
        env._elapsed_steps = elapsed
    if hasattr(u, "data") and hasattr(u, "model"):
        import mujoco
        spec = mujoco.mjtState.mjSTATE_INTEGRATION
        st = saved.array("mujoco", np.float64, (mujoco.mj_stateSize(u.model, spec),))
        mujoco.mj_setState(u.model, u.data, st, spec)
        mujoco.mj_forward(u.model, u.data)


# ---- the file -----------------------------------------------------------------------------

def write(path, ident: dict, fields: dict, arrays: dict) -> None:
    """Write a checkpoint (module docstring) to ``path``, atomically."""
    entries, blobs, offset = [], [], 0
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        if a.dtype.str not in DTYPES:
            raise CheckpointError(f"{path}: cannot save the array {name} of dtype {a.dtype} "
                                  f"(a checkpoint holds booleans, integers and floats)")
        entries.append({"name": name, "dtype": a.dtype.str, "shape": list(a.shape),
                        "offset": offset, "nbytes": a.nbytes})
        blobs.append(a.reshape(-1).view(np.uint8))
        offset += a.nbytes
    try:
        header = json.dumps({"identity": ident, "fields": fields, "data_bytes": offset,
                             "arrays": entries}, separators=(",", ":")).encode()
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: cannot save the run: a field is not JSON ({exc})"
                              ) from None
    digest = hashlib.sha256()
    with atomic_output(path, CheckpointError) as tmp:
        with open(tmp, "wb") as f:
            for piece in (MAGIC, _PREFIX.pack(FORMAT_VERSION, len(header)), header, *blobs):
                digest.update(piece)
                f.write(piece)
            f.write(digest.digest())


def read(path) -> Saved:
    """A checkpoint's content (its ``identity`` and its fields and arrays), every check of
    the module docstring but the identity's made; a CheckpointError names what is wrong."""
    name = os.fspath(path)
    blob = read_bytes(name, CheckpointError, "checkpoint")
    start = len(MAGIC) + _PREFIX.size
    if not blob.startswith(MAGIC):
        if blob and MAGIC.startswith(blob):
            raise CheckpointError(f"{name}: the checkpoint is truncated ({len(blob)} bytes); "
                                  f"{_AGAIN}")
        if blob[:1] == b"\x80" and any(tag in blob[:256] for tag in _OLD_TAGS):
            raise CheckpointError(f"{name}: a checkpoint of an older rlaccel (a pickle, which "
                                  f"is never loaded: it could run code); {_AGAIN}")
        what = "an empty file" if not blob else "not an rlaccel checkpoint"
        raise CheckpointError(f"{name}: {what}; give another --checkpoint file (this one is "
                              f"left as it is)")
    if len(blob) < start:
        raise CheckpointError(f"{name}: the checkpoint is truncated ({len(blob)} bytes); "
                              f"{_AGAIN}")
    version, size = _PREFIX.unpack_from(blob, len(MAGIC))
    if version != FORMAT_VERSION:
        raise CheckpointError(f"{name}: a checkpoint of format version {version}, which this "
                              f"rlaccel does not read (it reads version {FORMAT_VERSION}); "
                              f"{_AGAIN}")
    header = _header(blob, start, size)
    want = start + size + _DIGEST + (header["data_bytes"] if header is not None else 0)
    if len(blob) < want:
        raise CheckpointError(f"{name}: the checkpoint is truncated ({len(blob):,} of "
                              f"{want:,} bytes); {_AGAIN}")
    if hashlib.sha256(memoryview(blob)[:-_DIGEST]).digest() != blob[-_DIGEST:]:
        raise CheckpointError(f"{name}: the checkpoint is damaged (its SHA-256 digest does "
                              f"not match its content); {_AGAIN}")
    if header is None:
        _malformed(name, "its header is not a JSON table with the size of its data")
    if len(blob) != want:
        _malformed(name, f"it has {len(blob) - want:,} bytes more than its header says")
    data = memoryview(blob)[start + size:len(blob) - _DIGEST]
    arrays = _arrays(name, header, data)
    ident, fields = header.get("identity"), header.get("fields")
    if not isinstance(ident, dict) or not isinstance(fields, dict):
        _malformed(name, "its header lacks the identity or the fields")
    return Saved(name, fields, arrays, identity=ident)


def _malformed(name: str, what: str):
    raise CheckpointError(f"{name}: the checkpoint is malformed ({what}); {_AGAIN}")


def _header(blob: bytes, start: int, size: int) -> dict | None:
    """The header as a dict, or None when it does not parse as one."""
    if size > len(blob) - start:
        return None
    try:
        h = json.loads(blob[start:start + size].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(h, dict):
        return None
    n = h.get("data_bytes")
    if type(n) is not int or n < 0:
        return None
    return h


def _arrays(name: str, header: dict, data: memoryview) -> dict:
    entries = header.get("arrays")
    if not isinstance(entries, list):
        _malformed(name, "its header has no list of arrays")
    out = {}
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or set(e) != {"name", "dtype", "shape", "offset", "nbytes"}:
            _malformed(name, f"array entry {i} is not a table of name, dtype, shape, offset "
                             f"and nbytes")
        key, dtype, shape, offset, nbytes = (e["name"], e["dtype"], e["shape"], e["offset"],
                                             e["nbytes"])
        if not isinstance(key, str) or key in out:
            _malformed(name, f"array entry {i} has no name or a name used twice")
        if dtype not in DTYPES:
            _malformed(name, f"the array {key} has dtype {dtype!r}; a checkpoint holds "
                             f"booleans, integers and floats only")
        if (not isinstance(shape, list) or len(shape) > 8
                or any(type(n) is not int or n < 0 for n in shape)):
            _malformed(name, f"the array {key} has shape {shape!r}")
        if type(offset) is not int or type(nbytes) is not int or not (
                0 <= offset <= offset + nbytes <= len(data)):
            _malformed(name, f"the array {key} lies outside the data")
        dt = np.dtype(dtype)
        if int(np.prod(shape, dtype=object)) * dt.itemsize != nbytes:
            _malformed(name, f"the array {key} has {nbytes} bytes, not those of shape "
                             f"{tuple(shape)} of {dt}")
        out[key] = (np.frombuffer(data, dt, nbytes // dt.itemsize, offset).reshape(shape).copy()
                    if nbytes else np.zeros(shape, dt))
    return out


def load(path, ident: dict) -> Saved:
    """:func:`read` a checkpoint and check that it belongs to the run of identity
    ``ident``."""
    saved = read(path)
    mine = json.loads(json.dumps(ident))
    theirs = saved.identity
    differ = [k for k in sorted(set(theirs) | set(mine)) if theirs.get(k) != mine.get(k)]
    if differ:
        raise CheckpointError(f"{saved.path}: the checkpoint was made by another run (it "
                              f"differs in {', '.join(differ)}); {_AGAIN}")
    return saved


# ---- the run ------------------------------------------------------------------------------

def identity(setup, manifest, overrides, options: dict) -> dict:
    """What a run's checkpoint must have been made by: the manifest's path and contents, the
    overrides, the architecture (name and file contents), the seed, the command line's
    options, the binary's sha256 and the rlaccel version."""
    from rlaccel.util.version import VERSION

    def sha(p):
        return hashlib.sha256(Path(p).read_bytes()).hexdigest()

    return {"manifest": str(Path(manifest).resolve()), "manifest_sha256": sha(manifest),
            "overrides": list(overrides or []), "arch": setup.arch.name,
            "arch_sha256": sha(setup.arch.path) if setup.arch.path else None,
            "seed": setup.m["seed"],
            "options": {k: v for k, v in options.items() if v is not None},
            "binary_sha256": setup.sha256(), "rlaccel": VERSION}


class _Keeper(QuantumKeeper):
    """An agent's quantum keeper while checkpoints are on: a QuantumKeeper that says, while
    its agent waits in :meth:`sync`, when the wait ends and in which order it was queued
    (``waits``: ``(cycle, order)``, None when the agent does not wait there)."""

    __slots__ = ("waits", "_order")

    def __init__(self, qk: QuantumKeeper, order):
        super().__init__(qk.env, qk._quantum)
        self.waits = None
        self._order = order

    def sync(self):
        if self.local_time:
            self.waits = (self.env.now + self.local_time, next(self._order))
        try:
            yield from QuantumKeeper.sync(self)
        finally:
            self.waits = None


class _Link:
    """What agent ``k``'s host link asks while checkpoints are on: the checkpoints' hook,
    which then asks the agent's host."""

    def __init__(self, hook: "_Checkpoints", k: int):
        self.hook, self.k = hook, k

    @property
    def finished(self) -> bool:
        return self.hook.hosts[self.k].finished

    def exchange(self, out):
        return self.hook.exchange(self.k, out)


class _Checkpoints:
    """The run while checkpoints are on: saves it before a host answers every
    ``every``-th exchange of the machine's agents (or the first exchange after it at which
    the machine and its hosts can be saved), then asks the agent's host."""

    def __init__(self, setup, progs: list, path: Path, every: int, ident: dict):
        self.setup, self.progs = setup, progs
        self.platform = setup.platform
        self.agents = self.platform.agents
        self.hosts = [a.link.host for a in self.agents]
        self.path, self.every, self.ident = path, every, ident
        self.resumed_at = None
        self.saves = 0
        self.due = False
        self.answering = None             # the agent whose exchange is being answered
        self.waiting: list = []           # restored: [(agent, cycle), ...] in waking order
        self.order = itertools.count()
        for a in self.agents:
            a.controller.qk = _Keeper(a.controller.qk, self.order)

    @property
    def exchanges(self) -> int:
        """Host exchanges answered so far, every agent's."""
        return sum(a.link.exchanges for a in self.agents)

    def exchange(self, k: int, out):
        n = self.exchanges
        if n and n % self.every == 0 and n != self.resumed_at:
            self.due = True
        if self.due:
            self.answering = k
            if self.save():
                self.due = False
        return self.hosts[k].exchange(out)

    # ---- the state ----
    def _waits(self) -> list | None:
        """The agents other than the answering one as ``[[agent, cycle], ...]`` in the order
        SimPy wakes them, each waiting in its quantum keeper for ``cycle``; None when one is
        not (it is inside a synchronisation with other agents, has halted or not started)."""
        waits = []
        for a in self.agents:
            if a.index == self.answering:
                continue
            w = a.controller.qk.waits
            if w is None or a.controller.halted:
                return None
            waits.append((*w, a.index))
        return [[i, int(t)] for t, _, i in sorted(waits)]

    def save(self) -> bool:
        waits = self._waits()
        if waits is None:
            return False
        parts = []
        for a, host in zip(self.agents, self.hosts):
            got = host.checkpoint_state(a)
            if got is None:
                return False
            covered = set(getattr(host, "checkpoint_agent_state", ()))
            other = sorted(set(a.state) - covered)
            if other:
                raise CheckpointError(f"{self.path}: the {self.setup.plugin.machine} machine "
                                      f"keeps per-agent state ({', '.join(other)}) its host "
                                      f"does not save; run without --checkpoint")
            parts.append(got)
        arrays, fields = {}, {"exchanges": self.exchanges}
        if len(self.agents) == 1:
            nest("machine", self._agent(0), arrays, fields)
            nest("host", parts[0], arrays, fields)
        else:
            net = self.platform.interconnect
            machine = ({}, {"answering": self.answering, "waiting": waits,
                            "interconnect": None if net is None else
                            {"words": int(net.words), "hops": int(net.hops)}})
            hosts: tuple[dict, dict] = ({}, {})
            for i, part in enumerate(parts):
                nest(f"agent{i}", self._agent(i), *machine)
                nest(f"agent{i}", part, *hosts)
            nest("machine", machine, arrays, fields)
            nest("host", hosts, arrays, fields)
        write(self.path, self.ident, fields, arrays)
        self.saves += 1
        return True

    def _agent(self, i: int) -> tuple[dict, dict]:
        """Agent ``i``'s controller, units, memories and host link."""
        agent, prog = self.agents[i], self.progs[i]
        ctrl, link = agent.controller, agent.link
        arrays = {name: getattr(prog, name) for name in _TABLES}
        arrays["UF"] = prog.UF
        arrays.update({f"memory.{s}": m.data for s, m in agent.memories.items()})
        tl = link.timeline

        def ints(d: dict) -> dict:                     # counts may be numpy integers
            return {k: int(v) for k, v in d.items()}

        fields = {
            "units": list(agent.units), "loop_units": [u.name for u in prog.units],
            "unit_state": {u.name: [int(u.free), int(u.busy)] for u in agent.units.values()},
            "host_cycles": int(ctrl.host_cycles), "sync_cycles": int(ctrl.sync_cycles),
            "dynamic_busy": ints(ctrl.dynamic_busy),
            "dynamic_actions": {str(pc): ints(a) for pc, a in ctrl.dynamic_actions.items()},
            "saturations": int(agent.saturations.saturations),
            "memory_stats": {s: ints({k: getattr(m.stats, k) for k in _COUNTERS})
                             for s, m in agent.memories.items()},
            "link": {**ints(link.as_dict()), "seconds": {k: float(v) for k, v in
                                                         tl.seconds.items()},
                     "calls": ints(tl.calls), "transfer_cycles": ints(tl.transfer_cycles)}}
        return arrays, fields

    def restore(self, saved: Saved) -> None:
        """Put a checkpoint into the freshly built machine, links and hosts."""
        n = len(self.agents)
        m, h = saved.part("machine"), saved.part("host")
        if n == 1:
            self.answering = 0
            self._restore_agent(m, 0)
        else:
            self.answering = m.get("answering", int, lo=0, hi=n - 1)
            self.waiting = self._restore_waits(m)
            for i in range(n):
                self._restore_agent(m.part(f"agent{i}"), i)
            net, counts = self.platform.interconnect, m.get("interconnect", dict, none=True)
            if (net is None) != (counts is None):
                raise m.unfit("its interconnect is not this machine's")
            if net is not None:
                ic = m.part("interconnect")
                net.words, net.hops = ic.get("words", int, lo=0), ic.get("hops", int, lo=0)
        got = saved.get("exchanges", int, lo=1)
        if got != self.exchanges:
            raise saved.unfit(f"exchanges = {got} but its link made {self.exchanges}")
        for i, (agent, host) in enumerate(zip(self.agents, self.hosts)):
            host.restore(agent, h if n == 1 else h.part(f"agent{i}"))
        unread = sorted(set(saved.arrays) - saved.used)
        if unread:
            raise saved.unfit(f"it holds arrays this run does not read "
                              f"({', '.join(unread[:5])})")
        self.resumed_at = got
        self.setup.plugin.progress(self.setup.r)     # lines of the saved part: printed then

    def _restore_waits(self, m: Saved) -> list:
        waits = m.get("waiting", list)
        others = sorted(set(range(len(self.agents))) - {self.answering})
        if not all(isinstance(w, list) and len(w) == 2 and all(type(x) is int for x in w)
                   and w[1] >= 0 for w in waits) or sorted(w[0] for w in waits) != others:
            raise m.unfit(f"{m.where}waiting does not list agents {others} with their "
                          f"cycles")
        return [tuple(w) for w in waits]

    def _restore_agent(self, m: Saved, i: int) -> None:
        """Agent ``i``'s part (:meth:`_agent`); the answering agent must wait at a host
        exchange."""
        from rlaccel.tlm.fast import interp as I
        from rlaccel.tlm.loader import HOST
        agent, prog = self.agents[i], self.progs[i]
        ctrl, link = agent.controller, agent.link
        for name in m.get("units", list):
            if not isinstance(name, str):
                raise m.unfit(f"a unit name is {_kind(name)}")
            agent.unit(name)
        loop_units = m.get("loop_units", list)
        if [u.name for u in prog.units] != loop_units[:len(prog.units)]:
            raise m.unfit("its units are not this machine's")
        for name in loop_units[len(prog.units):]:
            prog.unit(agent, name)
        if "unit_state" in m.fields:                   # (older checkpoints have none)
            for name, v in m.get("unit_state", dict).items():
                if name not in agent.units or not (
                        isinstance(v, list) and len(v) == 2
                        and all(type(x) is int and x >= 0 for x in v)):
                    raise m.unfit(f"unit_state of {name!r} is not a free and a busy cycle")
                agent.units[name].free, agent.units[name].busy = v
        for name in _TABLES:
            table = getattr(prog, name)
            np.copyto(table, m.array(name, table.dtype, table.shape))
        uf = m.array("UF", np.int64, (None,))
        if len(uf) < len(prog.units):
            raise m.unfit(f"UF has {len(uf)} units, not {len(prog.units)}")
        prog.UF = uf
        st, ops = prog.ST, agent.ops
        pc = int(st[I.S_PC])
        if i == self.answering and not (0 <= pc < len(ops) and ops[pc].kind == HOST):
            raise m.unfit(f"its machine does not wait at a host exchange (PC {pc})")
        if not 0 <= pc < len(ops):
            raise m.unfit(f"agent {i} is at PC {pc}, outside its program")
        if not 0 <= st[I.S_NPEND] <= len(prog.PEND) or min(st[I.S_T], st[I.S_EXEC]) < 0:
            raise m.unfit("its controller state is out of range")
        st[I.S_NTR] = st[I.S_TRPROD] = 0                # no trace in a checkpointed run
        st[I.S_TRBUDGET] = -1
        for space, mem in agent.memories.items():
            np.copyto(mem.data, m.array(f"memory.{space}", mem.data.dtype, mem.data.shape))
        stats = m.part("memory_stats")
        for space, mem in agent.memories.items():
            counts = stats.part(space)
            for k in _COUNTERS:
                setattr(mem.stats, k, counts.get(k, int, lo=0))
        ctrl.host_cycles = m.get("host_cycles", int, lo=0)
        ctrl.sync_cycles = m.get("sync_cycles", int, lo=0)
        ctrl.dynamic_busy = _counts(m, m.get("dynamic_busy", dict), "dynamic_busy")
        ctrl.dynamic_actions = {}
        for pc_text, acts in m.get("dynamic_actions", dict).items():
            if not (pc_text.isdigit() and int(pc_text) < len(ops) and isinstance(acts, dict)):
                raise m.unfit(f"dynamic_actions names PC {pc_text!r}")
            ctrl.dynamic_actions[int(pc_text)] = _counts(m, acts, "dynamic_actions")
        sat = m.get("saturations", int, lo=0)
        agent.saturations.saturations = sat
        agent.dt.saturations += sat
        lk = m.part("link")
        for k in ("exchanges", "words_out", "words_in", "cycles"):
            setattr(link, k, lk.get(k, int, lo=0))
        tl = link.timeline
        tl.seconds = _numbers(lk, "seconds", float)
        tl.calls = _numbers(lk, "calls", int)
        tl.transfer_cycles = _numbers(lk, "transfer_cycles", int)

    # ---- the run ----
    def _wake(self, i: int, cycle: int):
        """Agent ``i`` as it was saved: waiting in its quantum keeper until ``cycle``, then
        on the compiled loop."""
        from rlaccel.tlm.fast.engine import process
        env, ctrl = self.platform.env, self.agents[i].controller
        qk = ctrl.qk
        qk.waits = (cycle, next(self.order))
        yield env.timeout(cycle - env.now)
        qk.waits = None
        qk.reset()
        return (yield from process(ctrl, self.progs[i]))

    def run(self):
        """Run the agents to their end on the compiled loop; the platform's Results. A
        resumed run starts the answering agent's process first (it re-enters its host
        exchange, its keeper waiting for the exchange's cycle), then one for every waiting
        agent in the order SimPy would have woken them, so that the agents meet and the
        hosts are asked in the uninterrupted run's order."""
        import simpy

        from rlaccel.tlm.fast.engine import process
        from rlaccel.tlm.results import Results
        pl = self.platform
        wall = time.perf_counter()
        if self.resumed_at is None:
            procs = [pl.env.process(process(a.controller, prog))
                     for a, prog in zip(self.agents, self.progs)]
        else:
            k = self.answering
            procs = [pl.env.process(process(self.agents[k].controller, self.progs[k]))]
            procs += [pl.env.process(self._wake(i, cycle)) for i, cycle in self.waiting]
        pl.env.run(until=simpy.AllOf(pl.env, procs))
        return Results.collect(pl, time.perf_counter() - wall)


_COUNTERS = ("reads", "writes", "words_read", "words_written")


def _counts(m: Saved, d: dict, what: str) -> dict:
    if not all(isinstance(k, str) and type(v) is int and v >= 0 for k, v in d.items()):
        raise m.unfit(f"{what} holds something other than counts")
    return dict(d)


def _numbers(m: Saved, key: str, kind: type) -> dict:
    d = m.get(key, dict)
    if not all(type(v) is kind for v in d.values()):
        raise m.unfit(f"{m.where}{key} holds something other than {_kind(kind())}s")
    return dict(d)




def run_checkpointed(setup, path: str | os.PathLike, every: int, ident: dict):
    """Run a prepared run (the runner's setup) with checkpoints in ``path`` every ``every``
    host exchanges (of all its agents), resuming from ``path`` if it holds one of the run of
    identity ``ident`` (:func:`identity`); returns the platform's Results and sets
    ``setup.checkpoint`` (the file, every, the exchange resumed at, the saves, the
    exchanges)."""
    from rlaccel.tlm.fast.engine import prepare
    if not is_whole(every):
        raise CheckpointError(f"--checkpoint-every must be at least 1, not {every!r}")
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"{path}: is a folder; --checkpoint names a file")
    pl, machine = setup.platform, setup.plugin.machine
    hosts = [a.link.host for a in pl.agents]
    if not all(callable(getattr(h, m, None)) for h in hosts
               for m in ("checkpoint_state", "restore")):
        raise CheckpointError(f"--checkpoint: the {machine} machine's host cannot be saved "
                              f"(it has no checkpoint_state and restore); run without "
                              f"--checkpoint")
    progs = [prepare(a.controller, always=True) for a in pl.agents]   # instructions without
    saved = load(path, ident) if path.exists() else None    # a kernel: handed back to Python
    hook = _Checkpoints(setup, progs, path, every, ident)
    if saved is not None:
        hook.restore(saved)
    for k, a in enumerate(pl.agents):
        a.link.host = _Link(hook, k)
    try:
        results = hook.run()
    finally:
        for a, host in zip(pl.agents, hosts):
            a.link.host = host
    setup.checkpoint = {"file": str(path), "every": every, "resumed_at": hook.resumed_at,
                        "saves": hook.saves, "exchanges": hook.exchanges}
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise CheckpointError(f"{path}: the run finished but its checkpoint cannot be "
                              f"removed: {exc.strerror}") from None
    return results

"""What a learner (the MADDPG paper, section III-B) keeps while it runs: its compute units' unroll
factors, when every sample of every buffer it has streamed will be ready, its constants.

Every agent of a ``marl`` machine is one learner. Its controller issues one stream per compute
unit (CU) and goes on; the CU works through the batch in simulated time
(:func:`rlaccel.machines.maddpg.tlm.stream.stream`). So that a consumer CU starts sample
``k`` only when its producer has finished sample ``k``, every stream records, for the words
it writes, the cycle at which each sample's result is ready (:meth:`Learner.produced`); a
later stream whose operand overlaps them waits sample by sample (:meth:`Learner.ready`). A
buffer the host wrote is ready when the instruction that reads it issues.

The architecture's ``[learner]`` table holds the constants the paper leaves open::

    [learner]
    stage_depth = 0     # cycles a sample's result needs after its T cycles on the CU
    adam_passes = 4     # passes of a CU's F elements over its weights per Adam step
    sgd_passes = 1
    clip_passes = 2     # the sum of squares, then the scale
    soft_passes = 2     # (1 - tau) w', then + tau w
    bank_passes = 1     # wld / wst: F words per cycle through the CU's banks
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlaccel.isa.arch import arch_table
from rlaccel.util.errors import ArchError, SimError
from rlaccel.util.numbers import is_whole

__all__ = ["LEARNER_KEYS", "Learner", "learner", "unit_name", "RING_UNIT"]

#: the ``[learner]`` constants, with their defaults
LEARNER_KEYS = {"stage_depth": 0, "adam_passes": 4, "sgd_passes": 1, "clip_passes": 2,
                "soft_passes": 2, "bank_passes": 1}

#: the unit that stands for a learner's ring port (its link to the next learner)
RING_UNIT = "ring"


def unit_name(u: int) -> str:
    """The platform unit of compute unit ``u`` (``cu07``)."""
    return f"cu{u:02d}"


def _constants(arch) -> dict:
    origin = arch.origin
    table = arch_table(arch, "learner", LEARNER_KEYS)
    out = dict(LEARNER_KEYS)
    for key, v in table.items():
        low = 0 if key == "stage_depth" else 1
        if not is_whole(v, low):
            raise ArchError(f"{origin}: [learner] {key} must be a whole number >= {low}, "
                            f"not {v!r}")
        out[key] = v
    return out


@dataclass(eq=False)
class _Written:
    space: int
    lo: int
    hi: int
    done: np.ndarray            # per sample: the cycle its result is ready
    ring: bool                  # written by the ring (for the report of exposed ring time)


@dataclass
class Learner:
    """A learner's state (one per agent, in ``agent.state["marl.learner"]``)."""

    index: int
    constants: dict
    factors: dict = field(default_factory=dict)        # CU -> unroll factor F
    written: list = field(default_factory=list)        # _Written, newest last
    ring_wait: int = 0           # cycles CUs waited for the ring beyond their other inputs
    ring_samples: int = 0        # samples that waited for the ring
    last: dict = field(default_factory=dict)           # CU -> (start, done, T) of its last stream
    #: ``(written, {(space, lo, hi): entry}, {reads: [(space, lo, hi), ...]})`` for the list
    #: ``written`` it was made for (the written ranges never overlap: :meth:`produced`)
    _index: tuple | None = field(default=None, repr=False, compare=False)

    def factor(self, u: int, what: str) -> int:
        f = self.factors.get(u)
        if f is None:
            raise SimError(f"learner {self.index}: {what} runs on compute unit {u}, which has "
                           f"no unroll factor: configure it with 'cucfg u={u}, f=F' first")
        return f

    def configure(self, u: int, f: int) -> None:
        if f < 1:
            raise SimError(f"learner {self.index}: compute unit {u} needs f >= 1 elements, "
                           f"not {f}")
        old = self.factors.get(u)
        if old is not None and old != f:
            raise SimError(f"learner {self.index}: compute unit {u} has {old} elements; it "
                           f"cannot be configured again with {f}")
        self.factors[u] = f

    def ready(self, space: int, lo: int, hi: int, batch: int):
        """Per sample, when the words ``[lo, hi)`` of ``space`` are ready, and the same over
        what the ring did not write: ``(all, not_ring)``, each None when no stream wrote
        there."""
        out = [None, None]
        for w in self.written:
            if w.space != space or w.hi <= lo or hi <= w.lo:
                continue
            d = w.done if len(w.done) == batch else np.full(batch, w.done.max(), np.int64)
            for j in ((0,) if w.ring else (0, 1)):
                out[j] = d.copy() if out[j] is None else np.maximum(out[j], d)
        return out[0], out[1]

    def ready_from(self, reads, batch: int, now: int):
        """Per sample, when every range ``(space, lo, hi)`` of ``reads`` is ready, and not
        before ``now``: ``(all, not_ring)`` as :meth:`ready` for them all at once, except that
        ``not_ring`` is None when the ring wrote none of them (it equals ``all`` then)."""
        hits = self.hits(reads)
        ready = np.empty(batch, np.int64)
        ready.fill(now)
        base = ready.copy() if any(w.ring for w in hits) else None
        for w in hits:
            d = w.done if len(w.done) == batch else np.full(batch, w.done.max(), np.int64)
            np.maximum(ready, d, out=ready)
            if base is not None and not w.ring:
                np.maximum(base, d, out=base)
        return ready, base

    def hits(self, reads) -> list:
        """The written ranges (``_Written``) that overlap a range of ``reads``."""
        _, by, overlaps = self._ranges()
        if by is None:
            return [w for w in self.written if _overlaps(w, reads)]
        keys = overlaps.get(reads)         # the same ranges overlap a stream's reads each round
        if keys is None:
            keys = overlaps[reads] = [k for k, w in by.items() if _overlaps(w, reads)]
        return [by[k] for k in keys]

    def produced(self, space: int, lo: int, hi: int, done: np.ndarray,
                 ring: bool = False) -> None:
        """A stream wrote ``[lo, hi)``; sample k is ready at ``done[k]``. Every range it
        overlaps is dropped, so the ranges kept never overlap: a range written again is the
        only one it overlaps, and is replaced without a search."""
        new = _Written(space, lo, hi, np.asarray(done, np.int64), ring)
        _, by, overlaps = self._ranges()
        key = (space, lo, hi)
        old = by.get(key) if by is not None and lo < hi else None
        if old is not None:
            self.written.remove(old)
            self.written.append(new)
            by[key] = new
            return
        kept, gone = [], set()
        for w in self.written:
            if w.space != space or w.hi <= lo or hi <= w.lo:
                kept.append(w)
            else:
                gone.add((w.space, w.lo, w.hi))
        self.written[:] = kept                 # the same list: its index is brought up to date
        self.written.append(new)
        if by is None or key in by:
            self._index = None                 # two entries of one range: made again
            return
        for k in gone:
            del by[k]
        by[key] = new
        for reads, keys in overlaps.items():
            keys[:] = [k for k in keys if k not in gone]
            if _overlaps(new, reads):
                keys.append(key)

    def _ranges(self) -> tuple:
        """:attr:`_index`, made again when ``written`` is another list (None for the dict when
        two entries have one range)."""
        ix = self._index
        if ix is None or ix[0] is not self.written:
            by = {(w.space, w.lo, w.hi): w for w in self.written}
            ix = self._index = (self.written, by if len(by) == len(self.written) else None, {})
        return ix


def _overlaps(w: _Written, reads) -> bool:
    return any(w.space == space and w.lo < hi and lo < w.hi for space, lo, hi in reads)


def learner(agent) -> Learner:
    """The learner state of an agent (made on first use, its constants checked)."""
    st = agent.state.get("marl.learner")
    if st is None:
        if agent.dt.name != "fp32":
            origin = agent.arch.origin
            raise ArchError(f"{origin}: the learners' instructions compute in fp32 (the MADDPG paper, "
                            f"section IV-A); this architecture's dtype is {agent.dt.name}")
        st = agent.state["marl.learner"] = Learner(agent.index, _constants(agent.arch))
    return st

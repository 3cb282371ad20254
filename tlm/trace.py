"""Chrome/Perfetto trace of a run (``--trace FILE``): one process per agent, one track per
unit.

Events use the JSON trace format (``chrome://tracing``, https://ui.perfetto.dev): per agent,
one complete event per instruction on its "issue" track (a stall as its own event before
it), the busy time of units that keep working after the issue stage has moved on on their
own tracks, host exchanges on the "host link" track and waits for other agents on the
"interconnect" track.

Records are kept compactly as integers -- the compiled loop hands over whole blocks of
``(pc, start, busy, stall, units shown)`` rows, the Python loop one tuple at a time -- and
become text once, when the file is written, by a compiled formatter that streams the file
in chunks and copies each event's head (name, pid, tid, category) from the first event
with the same head: every boundary is a
whole nanosecond computed from its cycle (``round(cycle * 1000 / MHz)``), written as
microseconds with three decimals, so slices that meet in cycles meet exactly in the file
(Perfetto's importer rounds ``ts`` and ``dur`` to whole nanoseconds separately, and drops a
slice that crosses an open one). :meth:`ChromeTrace.events` gives the same events as Python
dictionaries (the tests compare the two).

A trace holds every event of the run unless told otherwise: ``max_events`` cuts it after that
many, ``window`` keeps only the events that overlap a span of cycles (a compiled block wholly
outside it is never expanded, so a window early in a long run costs little memory). What is
left out is counted (:meth:`stats`, the file's ``otherData``) and the runner says so. Each
agent also gets a counter track, ``utilisation``: the share of each of about
:data:`COUNTER_POINTS` spans of the run in which its issue slot executed an instruction (not
stalled, not waiting on the host or the other agents), ``power`` when the run's energy per
instruction is known (:meth:`ChromeTrace.energies`: the mean of each mnemonic, so a span's
power is that of the instructions started in it, not of every action they took), and a flow
arrow from its issue slot to every host exchange and interconnect transaction.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rlaccel.util.files import atomic_output, atomic_write

from rlaccel.tlm.fast.jit import njit
from rlaccel.tlm.fast.native import memcpy

__all__ = ["ChromeTrace"]

_ISSUE, _HOST, _NET = 1, 2, 3
_INSTRUCTION, _STALL, _UNIT, _TRANSACTION = range(4)
_CATS = ("instruction", "stall", "unit", "transaction")
# record columns: pid, tid (negative: unit name id - 1, given its track at write time),
# name id, category, start cycle, cycles, pc or words out, words in (-1: a pc)
_NCOL = 8
#: spans of the run the ``utilisation`` counter track has a value for (at most)
COUNTER_POINTS = 500
#: the budget the compiled loop is given when nothing caps the trace
_UNCAPPED = 1 << 62


class ChromeTrace:
    def __init__(self, clock_mhz: float, max_events: int | None = None,
                 window: tuple[int, int] | None = None):
        """``max_events``: keep at most this many events (None: all); ``window``: keep only
        events that overlap cycles ``[start, end)`` (None: the whole run)."""
        self.clock_mhz = clock_mhz
        self.max_events = max_events
        self.window = window
        # rows of _NCOL ints, or compiled blocks (agent, rows, events kept)
        self.records: list = []
        self.kept = 0
        self.dropped = 0            # beyond max_events
        self.outside = 0            # outside the window
        self._names: dict[str, int] = {}
        self._programs: dict[int, tuple] = {}
        self._labels: dict[str, str] = {}
        self._energy: dict[str, float] = {}

    # ---- recording ------------------------------------------------------------------------
    def _name(self, name: str) -> int:
        i = self._names.get(name)
        if i is None:
            i = self._names[name] = len(self._names)
        return i

    def label(self, track: str, text: str) -> None:
        """Show the unit track ``track`` (every agent's) as ``text``, e.g. a compute unit
        with the pipeline stage it is; the events are unchanged."""
        self._labels[track] = text

    def energies(self, per_instruction_pj: dict[str, float]) -> None:
        """The mean energy of one instruction of each mnemonic (the run's energy by opcode
        over its count): with it the trace gets a ``power`` counter track per agent."""
        self._energy = dict(per_instruction_pj)

    def remaining(self) -> int:
        """Events that may still be recorded before the cut."""
        if self.max_events is None:
            return _UNCAPPED
        return self.max_events - self.kept

    def stats(self) -> dict:
        """Events kept, and those left out beyond ``max_events`` and outside ``window``."""
        return {"events": self.kept, "beyond_max_events": self.dropped,
                "outside_window": self.outside, "max_events": self.max_events,
                "window_cycles": list(self.window) if self.window else None}

    def _outside(self, start: int, cycles: int) -> bool:
        w = self.window
        return w is not None and (start + cycles <= w[0] or start >= w[1])

    def _add(self, rec: tuple) -> None:
        if self._outside(rec[4], rec[5]):
            self.outside += 1
        elif self.max_events is None or self.kept < self.max_events:
            self.records.append(rec)
            self.kept += 1
        else:
            self.dropped += 1

    def program(self, agent: int, ops: list) -> None:
        """Name the PCs of an agent's compiled blocks: ``(mnemonic, ((unit, cycles), ...))``
        per PC."""
        n = len(ops)
        width = max([len(u) for _, u in ops] + [1])
        name = np.array([self._name(m) for m, _ in ops] or [0], dtype=np.int64)
        units = np.zeros((max(n, 1), width, 2), dtype=np.int64)
        nunits = np.zeros(max(n, 1), dtype=np.int64)
        for pc, (_, us) in enumerate(ops):
            nunits[pc] = len(us)
            for k, (u, cycles) in enumerate(us):
                units[pc, k] = (self._name(u), cycles)
        self._programs[agent] = (name, units, nunits)

    def compiled(self, agent: int, rows: np.ndarray, records: int) -> None:
        """A block of instructions from the compiled loop: rows of ``(pc, start, busy, stall,
        units shown)`` -- or ``(-1, start, cycles, words out, words in)`` for a host-link
        transaction -- that make ``records`` events (the first of them are kept while there
        is room)."""
        if self.window is not None:
            rows, inside = self._in_window(agent, rows)
            self.outside += records - inside
            records = inside
            if not records:
                return
        keep = max(min(records, self.remaining()), 0)
        if keep:
            self.records.append((agent, rows, keep))
        self.kept += keep
        self.dropped += records - keep

    def _in_window(self, agent: int, rows: np.ndarray) -> tuple[np.ndarray, int]:
        """The rows of a compiled block with an event that overlaps the window, and the
        number of events they make (what :func:`_expand` makes of them)."""
        lo, hi = self.window
        start, busy, stall = rows[:, 1], rows[:, 2], rows[:, 3]
        host = rows[:, 0] < 0
        pc = np.where(host, 0, rows[:, 0])
        name, units, nunits = self._programs[agent]
        ucyc = units[pc, :, 1] * (np.arange(units.shape[1]) < nunits[pc][:, None])
        longest = np.maximum(busy, ucyc.max(axis=1) if units.shape[1] else busy)
        first = np.where(host, start, start - stall)
        last = np.where(host, start + busy, start + longest)
        keep = (last > lo) & (first < hi)
        shown = (rows[:, 4] != 0) & ~host
        events = np.where(host, 1, 1 + (stall > 0)
                          + np.where(shown, (ucyc > busy[:, None]).sum(axis=1), 0))
        return rows[keep], int(events[keep].sum())

    def instruction(self, agent: int, pc: int, mnemonic: str, start: int, busy: int,
                    stall: int, units=()) -> None:
        pid, name = agent + 1, self._name(mnemonic)
        if stall:
            self._add((pid, _ISSUE, self._name("stall"), _STALL, start - stall, stall, pc, -1))
        self._add((pid, _ISSUE, name, _INSTRUCTION, start, busy, pc, -1))
        for unit, cycles in units:
            if cycles > busy:
                self._add((pid, -1 - self._name(unit.name), name, _UNIT, start, cycles, pc,
                           -1))

    def unit(self, agent: int, unit: str, name: str, start: int, cycles: int,
             pc: int) -> None:
        """Busy time of a unit that no issue slot shows: ``cycles`` from ``start`` on the
        unit's own track, named ``name``, started by the instruction at ``pc`` (a pipeline
        stage working through a batch sample by sample, a ring link carrying messages)."""
        self._add((agent + 1, -1 - self._name(unit), self._name(name), _UNIT, start, cycles,
                   pc, -1))

    def transaction(self, agent: int, track: str, start: int, cycles: int, words_out: int,
                    words_in: int, name: str | None = None) -> None:
        tid = _HOST if track == "host link" else _NET
        self._add((agent + 1, tid, self._name(name or track), _TRANSACTION, start, cycles,
                   words_out, words_in))

    # ---- writing --------------------------------------------------------------------------
    def _rows(self) -> tuple[np.ndarray, dict[str, int]]:
        """Every kept record as one int64 row, unit tracks numbered in order of first use."""
        parts, loose = [], []
        stall, host = self._name("stall"), self._name("host link")
        for rec in self.records:
            if len(rec) == 3:
                if loose:
                    parts.append(np.array(loose, dtype=np.int64))
                    loose = []
                agent, rows, keep = rec
                name, units, nunits = self._programs[agent]
                parts.append(_expand(rows, name, units, nunits, agent + 1, stall, host, keep))
            else:
                loose.append(rec)
        if loose:
            parts.append(np.array(loose, dtype=np.int64))
        R = np.concatenate(parts) if parts else np.zeros((0, _NCOL), dtype=np.int64)
        tracks: dict[str, int] = {}
        neg = R[:, 1] < 0
        if neg.any():
            ids, first = np.unique(R[neg, 1], return_index=True)
            names = {i: n for n, i in self._names.items()}
            for uid in ids[np.argsort(first)]:
                tracks[names[-1 - int(uid)]] = 10 + len(tracks)
            lut = {int(uid): tracks[names[-1 - int(uid)]] for uid in ids}
            R[neg, 1] = [lut[v] for v in R[neg, 1].tolist()]
        return R, tracks

    def _meta(self, R: np.ndarray, tracks: dict) -> list[dict]:
        out = []
        ext = _extents(R)
        pids = np.zeros(max(int(ext[1]), 0) + 1, dtype=bool)
        pids[R[:, 0]] = True
        for a in sorted(set((np.flatnonzero(pids) - 1).tolist()) | {0}):
            names = {_ISSUE: "issue", _HOST: "host link", _NET: "interconnect",
                     **{tid: self._labels.get(name, name) for name, tid in tracks.items()}}
            out.append({"name": "process_name", "ph": "M", "pid": a + 1,
                        "args": {"name": f"agent {a}"}})
            for tid, name in names.items():
                out.append({"name": "thread_name", "ph": "M", "pid": a + 1, "tid": tid,
                            "args": {"name": name}})
        return out + self._counters(R) + self._flows(R)

    def _flows(self, R: np.ndarray) -> list[dict]:
        """A flow arrow from the issue slot to every host exchange and interconnect
        transaction it started (both begin at the same time)."""
        out = []
        tx = R[(R[:, 3] == _TRANSACTION) & ((R[:, 1] == _HOST) | (R[:, 1] == _NET))]
        for k, (pid, tid, start) in enumerate(tx[:, [0, 1, 4]].tolist()):
            ts = self._us(start)
            name = "host exchange" if tid == _HOST else "interconnect"
            out.append({"name": name, "ph": "s", "id": k, "pid": pid, "tid": _ISSUE,
                        "cat": "flow", "ts": ts})
            out.append({"name": name, "ph": "f", "bp": "e", "id": k, "pid": pid, "tid": tid,
                        "cat": "flow", "ts": ts})
        return out

    def _counters(self, R: np.ndarray) -> list[dict]:
        """Each agent's ``utilisation`` counter: the share of each span of the traced time
        its issue slot spent executing instructions (their events do not overlap)."""
        out = []
        ins = R[(R[:, 1] == _ISSUE) & (R[:, 3] == _INSTRUCTION)]
        if not len(ins):
            return out
        lo, hi = int(ins[:, 4].min()), int((ins[:, 4] + ins[:, 5]).max())
        if self.window is not None:
            lo, hi = max(lo, self.window[0]), min(hi, self.window[1])
        if hi <= lo:
            return out
        step = max(1, -(-(hi - lo) // COUNTER_POINTS))
        edges = np.arange(lo, hi + step, step, dtype=np.int64)
        edges[-1] = min(edges[-1], hi)
        for pid in np.unique(ins[:, 0]).tolist():
            ev = ins[ins[:, 0] == pid]
            ev = ev[np.argsort(ev[:, 4], kind="stable")]
            s, e = ev[:, 4], ev[:, 4] + ev[:, 5]
            done = np.concatenate([[0], np.cumsum(e - s)])

            def busy_before(t):            # cycles executed before each time of t
                i = np.searchsorted(s, t, side="left")
                return done[i] - np.where(i > 0, np.maximum(e[i - 1] - t, 0) * (i > 0), 0)

            b = busy_before(edges)
            share = np.diff(b) / np.diff(edges)
            for t, v in zip(edges[:-1].tolist(), share.tolist()):
                out.append({"name": "utilisation", "ph": "C", "pid": pid, "ts": self._us(t),
                            "args": {"issue": round(v, 4)}})
            if self._energy:
                out += self._power(pid, ev, edges)
        return out

    def _power(self, pid: int, ev: np.ndarray, edges: np.ndarray) -> list[dict]:
        """Milliwatts in each span: the mean energy of every instruction that started in it
        (of its mnemonic, :meth:`energies`) over the span's time."""
        names = {i: n for n, i in self._names.items()}
        pj = np.array([self._energy.get(names.get(i, ""), 0.0)
                       for i in range(max(self._names.values(), default=0) + 1)])
        span = np.searchsorted(edges, ev[:, 4], side="right") - 1
        inside = (span >= 0) & (span < len(edges) - 1)
        energy = np.bincount(span[inside], weights=pj[ev[inside, 2]],
                             minlength=len(edges) - 1)
        ns = np.diff(edges) * 1000 / self.clock_mhz
        return [{"name": "power", "ph": "C", "pid": pid, "ts": self._us(t),
                 "args": {"mW": round(float(e / d), 3)}}
                for t, e, d in zip(edges[:-1].tolist(), energy.tolist(), ns.tolist())]

    def _us(self, cycle: int) -> float:
        """A cycle boundary in microseconds, rounded to a whole nanosecond."""
        return round(cycle * 1000 / self.clock_mhz) / 1000

    def events(self) -> list[dict]:
        """The events as dictionaries (what :meth:`write` writes, built the slow way)."""
        R, tracks = self._rows()
        names = {i: n for n, i in self._names.items()}
        us = self._us
        out = self._meta(R, tracks)
        for pid, tid, name, cat, start, cycles, a1, a2 in R.tolist():
            ts = us(start)
            args = {"pc": a1} if a2 < 0 else {"words_out": a1, "words_in": a2}
            out.append({"name": names[name], "ph": "X", "pid": pid, "tid": tid,
                        "cat": _CATS[cat], "ts": ts, "dur": round(us(start + cycles) - ts, 3),
                        "args": args})
        return out

    def write(self, path: str | Path) -> None:
        R, tracks = self._rows()
        other = {"dropped_events": self.dropped + self.outside,
                 "beyond_max_events": self.dropped, "outside_window": self.outside,
                 "max_events": self.max_events,
                 "window_cycles": list(self.window) if self.window else None,
                 "clock_mhz": self.clock_mhz}
        meta = json.dumps(self._meta(R, tracks), separators=_COMPACT)[1:-1]
        tail = ('],"displayTimeUnit":"ns","otherData":'
                + json.dumps(other, separators=_COMPACT) + "}")
        ext = _extents(R)                    # last end, largest pid, tid; smallest
        if len(R) and ext[0] * 1000 / self.clock_mhz >= 1e12:
            # beyond 1e9 us a float's shortest repr may have fewer than 3 decimals
            body = json.dumps([e for e in self.events() if e["ph"] == "X"],
                              separators=_COMPACT)[1:-1]
            atomic_write(path, '{"traceEvents":[' + meta + "," + body + tail)
            return
        order = sorted(self._names, key=self._names.get)
        texts = ([json.dumps(n).encode() for n in order]
                 + [json.dumps(c).encode() for c in _CATS] + [t.encode() for t in _PIECES]
                 + [('{"traceEvents":[' + meta + ("," if len(R) else "")).encode(),
                    tail.encode()])
        offs = np.cumsum([0] + [len(t) for t in texts]).astype(np.int64)
        blob = np.frombuffer(b"".join(texts), dtype=np.uint8)
        # an event's text up to its "ts" depends on (name, category, pid, tid) only: each
        # such head is formatted once and copied (when the table of them stays small)
        dims = np.array([len(order), len(_CATS), ext[1] + 1, ext[2] + 1], dtype=np.int64)
        heads = int(np.prod(dims)) if ext[3] >= 0 else 0
        if not 0 < heads <= _MAX_HEADS:
            dims[:] = 0
            heads = 1
        seen = np.full((heads + 1, 2), -1, dtype=np.int64)
        seen[heads, 0] = 0
        k0 = len(order) + len(_CATS)
        size = (int(offs[k0 + len(_PIECES)] - offs[k0])
                + 2 * max(len(t) for t in texts[:k0]) + 2 * 21 + 4 * 20)
        n = len(R)
        hbuf = np.empty(min(n, heads) * size + 1, dtype=np.uint8)
        buf = np.empty(_CHUNK * size + 1, dtype=np.uint8)
        with atomic_output(path) as tmp, open(tmp, "wb") as f:   # written chunk by chunk
            f.write(texts[-2])
            for lo in range(0, n, _CHUNK):
                p = _format_rows(R, lo, min(n, lo + _CHUNK), blob, offs, len(order),
                                 float(self.clock_mhz), dims, seen, hbuf, buf)
                f.write(memoryview(buf[:p]))
            f.write(texts[-1])


@njit(nrt=False)
def _extents(R):
    """(largest start + cycles, largest pid, largest tid, smallest pid or tid) of R's rows
    (0, 0, 0, 0 when empty), in one pass."""
    end, pid, tid, low = 0, 0, 0, 0
    for r in range(R.shape[0]):
        e = R[r, 4] + R[r, 5]
        if r == 0 or e > end:
            end = e
        if r == 0 or R[r, 0] > pid:
            pid = R[r, 0]
        if r == 0 or R[r, 1] > tid:
            tid = R[r, 1]
        m = R[r, 0] if R[r, 0] < R[r, 1] else R[r, 1]
        if r == 0 or m < low:
            low = m
    return end, pid, tid, low


@njit
def _expand(rows, name, units, nunits, pid, stall, host, keep):
    """The records of a compiled block, in the order the Python loop makes them."""
    out = np.empty((keep, _NCOL), dtype=np.int64)            # every row is filled
    k = 0
    for r in range(rows.shape[0]):
        pc, start, busy, st, shown = rows[r, 0], rows[r, 1], rows[r, 2], rows[r, 3], rows[r, 4]
        if pc < 0:                                          # a host-link transaction
            if k < keep:
                out[k, 0], out[k, 1], out[k, 2], out[k, 3] = pid, _HOST, host, _TRANSACTION
                out[k, 4], out[k, 5], out[k, 6], out[k, 7] = start, busy, st, shown
                k += 1
            if k >= keep:
                break
            continue
        if st and k < keep:
            out[k, 0], out[k, 1], out[k, 2], out[k, 3] = pid, _ISSUE, stall, _STALL
            out[k, 4], out[k, 5], out[k, 6], out[k, 7] = start - st, st, pc, -1
            k += 1
        if k < keep:
            out[k, 0], out[k, 1], out[k, 2], out[k, 3] = pid, _ISSUE, name[pc], _INSTRUCTION
            out[k, 4], out[k, 5], out[k, 6], out[k, 7] = start, busy, pc, -1
            k += 1
        if shown:
            for u in range(nunits[pc]):
                if units[pc, u, 1] > busy and k < keep:
                    out[k, 0], out[k, 1], out[k, 2] = pid, -1 - units[pc, u, 0], name[pc]
                    out[k, 3], out[k, 4], out[k, 5] = _UNIT, start, units[pc, u, 1]
                    out[k, 6], out[k, 7] = pc, -1
                    k += 1
        if k >= keep:
            break
    return out[:k]


# constant pieces of an event's text, after the names and categories in the blob
_PIECES = ('{"name":', ',"ph":"X","pid":', ',"tid":', ',"cat":', ',"ts":', ',"dur":',
           ',"args":{"pc":', ',"args":{"words_out":', ',"words_in":', "}}", ",")
_COMPACT = (",", ":")


@njit(inline=True)
def _int(buf, p, v):
    if v < 0:
        buf[p] = 45
        p += 1
        v = -v
    digits = 1
    t = np.int64(10)
    while digits < 19 and v >= t:         # counted by comparisons, no division
        t *= 10
        digits += 1
    for i in range(digits - 1, -1, -1):
        q = v // 10
        buf[p + i] = 48 + (v - q * 10)
        v = q
    return p + digits


@njit(inline=True)
def _micro(buf, p, ns):
    """``ns`` nanoseconds as the shortest repr of ns / 1000 (``12.5``, ``3.0``, ``0.046``)."""
    p = _int(buf, p, ns // 1000)
    buf[p] = 46
    p += 1
    f = ns % 1000
    if f == 0:
        buf[p] = 48
        return p + 1
    d0, d1, d2 = f // 100, (f // 10) % 10, f % 10
    buf[p] = 48 + d0
    p += 1
    if d1 or d2:
        buf[p] = 48 + d1
        p += 1
        if d2:
            buf[p] = 48 + d2
            p += 1
    return p


@njit(inline=True)
def _blob(buf, p, blob, offs, i):
    n = offs[i + 1] - offs[i]
    memcpy(np.int64(buf.ctypes.data) + p, np.int64(blob.ctypes.data) + offs[i], n)
    return p + n


#: most distinct event heads (name, category, pid, tid) :func:`_format_rows` keeps a table
#: for, and events formatted per chunk of the file
_MAX_HEADS = 1 << 20
_CHUNK = 1 << 13


@njit(inline=True)
def _head(buf, p, blob, offs, ncat0, k0, R, r):
    """An event's text up to ``"ts":``."""
    p = _blob(buf, p, blob, offs, k0)
    p = _blob(buf, p, blob, offs, R[r, 2])
    p = _blob(buf, p, blob, offs, k0 + 1)
    p = _int(buf, p, R[r, 0])
    p = _blob(buf, p, blob, offs, k0 + 2)
    p = _int(buf, p, R[r, 1])
    p = _blob(buf, p, blob, offs, k0 + 3)
    p = _blob(buf, p, blob, offs, ncat0 + R[r, 3])
    return _blob(buf, p, blob, offs, k0 + 4)


@njit(nrt=False)
def _format_rows(R, lo, hi, blob, offs, ncat0, mhz, dims, seen, hbuf, buf):
    """Events ``lo`` to ``hi`` of R as compact JSON text (``json.dumps`` of
    :meth:`ChromeTrace.events`' dicts without blanks, a comma before every event but the
    file's first) into ``buf``; returns its length. An event's text up to its ``ts`` (name,
    pid, tid, category) is formatted once into ``hbuf`` and copied from there (``seen``:
    where, a table of ``dims``; all 0: no table)."""
    k0 = ncat0 + 4                            # the first constant piece
    cached = dims[0] > 0
    p = 0
    for r in range(lo, hi):
        if r:
            buf[p] = 44                                   # ,
            p += 1
        if cached:
            key = ((R[r, 2] * dims[1] + R[r, 3]) * dims[2] + R[r, 0]) * dims[3] + R[r, 1]
            q = seen[key, 0]
            if q < 0:                         # the last row: hbuf's bytes in use
                last = seen.shape[0] - 1
                q = seen[last, 0]
                e = _head(hbuf, q, blob, offs, ncat0, k0, R, r)
                seen[key, 0] = q
                seen[key, 1] = e - q
                seen[last, 0] = e
            hlen = seen[key, 1]
            memcpy(np.int64(buf.ctypes.data) + p, np.int64(hbuf.ctypes.data) + q, hlen)
            p += hlen
        else:
            p = _head(buf, p, blob, offs, ncat0, k0, R, r)
        t0 = np.int64(np.rint(R[r, 4] * 1000.0 / mhz))
        t1 = np.int64(np.rint((R[r, 4] + R[r, 5]) * 1000.0 / mhz))
        p = _micro(buf, p, t0)
        p = _blob(buf, p, blob, offs, k0 + 5)
        p = _micro(buf, p, t1 - t0)
        if R[r, 7] < 0:
            p = _blob(buf, p, blob, offs, k0 + 6)
            p = _int(buf, p, R[r, 6])
        else:
            p = _blob(buf, p, blob, offs, k0 + 7)
            p = _int(buf, p, R[r, 6])
            p = _blob(buf, p, blob, offs, k0 + 8)
            p = _int(buf, p, R[r, 7])
        p = _blob(buf, p, blob, offs, k0 + 9)
    return p

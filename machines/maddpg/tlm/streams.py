"""The compute units' streams (the MADDPG paper, section III-B, IV-A) and the learners' streamed ring
exchange: instruction models of ``pfp``, ``pfpo``, ``pbp``, ``pwu``, ``pgs``, ``pgb``,
``ploss``, ``rgather`` and ``uwait``.

A stream instruction issues in one cycle and hands its batch to compute unit ``u``. At issue
it computes the whole batch's results (the units' functional models, fp32: ``kernels``,
``compute_unit``, ``softmax``, ``loss``) and schedules the unit in simulated time, sample by
sample: sample ``k`` starts when its operands' sample ``k`` is ready (the producing streams'
per-sample results, :mod:`.learner`) and the unit has finished sample ``k - 1``, and takes
``T = ceil(ID OD / F)`` cycles (eq. 4; the heads ``ceil(n / F)``, the loss one). The unit's
busy cycles, its free cycle and the per-sample ready times of what it wrote are recorded, so
the pipelines' fill, steady state and bottleneck are those of the simulated units; with a
trace, every run of back-to-back samples is a slice on the unit's track.

``rgather`` runs in SimPy time: a learner's controller waits until every learner has issued
its ``rgather`` (their vectors exist), then every sample's all-gather is scheduled on the
ring as the platform's ring does it, one all-gather per sample in order
(:func:`rlaccel.machines.maddpg.tlm.ring.stream_allgather`), and each learner's rows are
ready sample by sample when its last message arrives. ``uwait`` holds the controller until
every unit of the learner is idle.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from rlaccel.isa.dtypes.activations import ACTIVATIONS
from rlaccel.util.errors import SimError

from rlaccel.tlm.core import Ring
from rlaccel.tlm.model import Binding, Cost, InstructionModel, batch_rows
from rlaccel.tlm.families.base.energy import ACTIONS as WORD_ACTIONS
from rlaccel.tlm.families.base.energy import word_actions
from rlaccel.machines.maddpg.tlm import kernels
from rlaccel.machines.maddpg.tlm.compute_unit import cu_cycles
from rlaccel.machines.maddpg.tlm.loss import loss_error, td_target
from rlaccel.machines.maddpg.tlm.ring import stream_allgather
from rlaccel.machines.maddpg.tlm.softmax import gumbel_softmax_rows, head_backward_rows
from rlaccel.machines.maddpg.tlm.stream import busy_runs, stream, stream_after
from rlaccel.machines.maddpg.tlm.learner import RING_UNIT, learner, unit_name

__all__ = ["MODELS", "rows"]


def rows(mem: np.ndarray, addr: int, stride: int, width: int, batch: int,
         write: bool = False) -> np.ndarray:
    """``batch`` rows of ``width`` words, row k at ``addr + k * stride``: a view (a copy for
    reading). Rows written must not overlap."""
    if write and batch > 1 and stride < width:
        raise SimError(f"rows of {width} words {stride} apart overlap: a stream cannot write "
                       f"them")
    v = _view(mem, addr, stride, width, batch, write)
    return v if write else np.array(v)


def _view(mem: np.ndarray, addr: int, stride: int, width: int, batch: int,
          write: bool = False) -> np.ndarray:
    """The rows as a view of the memory: a reshape of its words when the rows lie ``stride``
    apart inside it, else :func:`~rlaccel.tlm.model.batch_rows` (read-only unless
    ``write``)."""
    end = addr + batch * stride
    if 0 < width <= stride and end <= mem.size and mem.ndim == 1 and mem.flags.c_contiguous:
        return mem[addr:end].reshape(batch, stride)[:, :width]
    return batch_rows(mem, addr, batch, stride, width, writeable=write)


# ---- one stream: functional results, then the unit's schedule ----------------------------
class _Stream:
    """What a bound stream instruction reads and writes: ``(space, first, end)`` ranges.
    ``compute`` finds its operands' rows through views it makes at its first execution and
    keeps (an agent's memories stay where they are); the unit's name and its cycles per
    sample for the unit's unroll factor are kept likewise."""

    def __init__(self, b: Binding, unit: int, cycles, reads, writes, compute):
        self.b, self.u, self.cycles = b, unit, cycles
        self.reads, self.writes, self.compute = tuple(reads), writes, compute
        self.unit = unit_name(unit)
        self._f = self._T = self._cu = None

    def __call__(self):
        b = self.b
        agent = b.agent
        L = learner(agent)
        f = L.factor(self.u, b.mnemonic)
        if f != self._f:
            self._f, self._T = f, self.cycles(f)
        self.compute()
        if self._cu is None:
            self._cu = agent.unit(self.unit)
        _schedule(agent, L, b, self.u, self.unit, self._cu, self._T, self.reads, self.writes)
        return
        yield  # a generator: the controller runs it in SimPy time, at the issue cycle


def _schedule(agent, L, b: Binding, u: int, unit: str, cu, T: int, reads, writes) -> None:
    batch, now = b.ops["batch"], agent.platform.env.now
    depth = L.constants["stage_depth"]
    hits = L.hits(reads)
    base = None
    if hits and not any(w.ring or len(w.done) != batch for w in hits):
        start, done = stream_after(now, [w.done for w in hits], T, cu.free, depth)
    else:
        ready, base = L.ready_from(reads, batch, now)        # base: without the ring
        start, done = stream(ready, T, cu.free, depth)
    if base is not None and not np.array_equal(ready, base):   # the ring's part came later
        _, alone = stream(base, T, cu.free, depth)
        L.ring_wait += int(done[-1] - alone[-1])
        L.ring_samples += int(np.count_nonzero(done > alone))
    cu.free = int(start[-1]) + T
    L.last[u] = (start, done, T)
    ctrl = agent.controller
    ctrl.dynamic_busy[unit] = ctrl.dynamic_busy.get(unit, 0) + batch * T
    for space, lo, hi in writes:
        L.produced(space, lo, hi, done)
    trace = ctrl.trace
    if trace is not None:
        for _, s, c in busy_runs(start, T):
            trace.unit(agent.index, unit, b.mnemonic, s, c, b.pc)


def _extent(addr: int, stride: int, width: int, batch: int) -> tuple[int, int]:
    return addr, addr + (batch - 1) * stride + width


def _act(b: Binding) -> str:
    return ACTIVATIONS[b.ops.get("act", 0)]


def _activate(b: Binding, y: np.ndarray) -> np.ndarray:
    act = _act(b)
    if act == "none":
        return y
    if act == "relu" and y.dtype == getattr(b.dt, "storage", None):
        # the format's relu, max(v, 0) rounded from its wide arithmetic, is exact: the same
        # bits taken in the storage format itself, without the round trip (nothing overflows)
        return np.maximum(y, y.dtype.type(0.0))
    return b.dt.activate(act, y, counter=b.counter)


def _count(b: Binding, out: np.ndarray, *inputs) -> None:
    """Saturations: results that are inf or NaN though every operand was finite."""
    if not np.isfinite(out).all() and all(np.isfinite(x).all() for x in inputs):
        b.counter.saturations += int(np.count_nonzero(~np.isfinite(out)))


def _fusable(b: Binding, U: np.ndarray, width: int, act: str, dst, *reads) -> bool:
    """Whether a stream's results can be computed and written in one compiled pass over the
    memory (:func:`.kernels.forward_rows`, :func:`.kernels.backward_rows`): results
    :data:`.kernels.WIDE` wide or more, no activation but fp32's ReLU, every ``(first, end)``
    range inside the memory and the written one apart from those read."""
    apart = all(hi <= dst[0] or dst[1] <= lo for lo, hi in reads)
    return (width >= kernels.WIDE and act in ("none", "relu") and _in_place(U, dst, *reads)
            and getattr(b.dt, "storage", None) == np.float32 and apart)


def _in_place(U: np.ndarray, *ranges) -> bool:
    """Whether compiled kernels can work on the memory's words where they are: numba, a 1-D
    float32 memory, every ``(first, end)`` range inside it."""
    return (kernels.HAVE_NUMBA and U.ndim == 1 and U.dtype == np.float32
            and all(0 <= lo <= hi <= U.size for lo, hi in ranges))


def _layer(b: Binding):
    o, S = b.ops, b.mem("synapse")
    n = o["rows"] * o["cols"]
    W = S[o["syn"]:o["syn"] + n].reshape(o["rows"], o["cols"])
    return W, S[o["syn"] + n:o["syn"] + n + o["rows"]]


# ---- the models' semantics -----------------------------------------------------------------
def _ids(b: Binding):
    a = b.agent
    return a.space_index("unified"), a.space_index("synapse")


def _pfp(b: Binding):
    o, U = b.ops, b.mem("unified")
    B, uid = o["batch"], _ids(b)[0]
    overlay = b.mnemonic == "pfpo"
    act = _act(b)

    @cache
    def views():
        src = () if overlay else (_extent(o["a"], o["sa"], o["cols"], B),)
        return (_view(U, o["a"], o["sa"], o["cols"], B),
                _view(U, o["b"], o["sb"], o["len"], B) if overlay else None,
                rows(U, o["dst"], o["sd"], o["rows"], B, write=True), *_layer(b),
                _fusable(b, U, o["rows"], act, _extent(o["dst"], o["sd"], o["rows"], B), *src))

    def compute():
        X, Xb, dst, W, bias, fused = views()
        if overlay:
            X = np.array(X)
            X[:, o["off"]:o["off"] + o["len"]] = Xb
        if fused and kernels.forward_rows(
                W, bias, act == "relu", *((X.reshape(-1), 0, o["cols"]) if overlay else
                                          (U, o["a"], o["sa"])),
                U, o["dst"], o["sd"], B):
            return
        with np.errstate(all="ignore"):
            Y = kernels.forward(W, bias, X)
        _count(b, Y, W, bias, X)
        dst[:] = _activate(b, Y)
    reads = [(uid, *_extent(o["a"], o["sa"], o["cols"], B))]
    if overlay:
        reads.append((uid, *_extent(o["b"], o["sb"], o["len"], B)))
    return _Stream(b, o["u"], lambda f: cu_cycles(o["cols"], o["rows"], f), reads,
                   [(uid, *_extent(o["dst"], o["sd"], o["rows"], B))], compute)


def _pbp(b: Binding):
    o, U = b.ops, b.mem("unified")
    B, uid = o["batch"], _ids(b)[0]
    act = _act(b)

    @cache
    def views():
        src = [_extent(o["a"], o["sa"], o["rows"], B)]
        if act != "none":
            src.append(_extent(o["b"], o["sb"], o["len"], B))
        return (_view(U, o["a"], o["sa"], o["rows"], B),
                _view(U, o["b"], o["sb"], o["len"], B) if act != "none" else None,
                rows(U, o["dst"], o["sd"], o["len"], B, write=True), _layer(b)[0],
                _fusable(b, U, o["len"], act, _extent(o["dst"], o["sd"], o["len"], B), *src))

    def compute():
        D, Xm, dst, W, fused = views()
        if fused and kernels.backward_rows(
                W, o["off"], o["len"], U, o["a"], o["sa"], U if act == "relu" else None,
                o.get("b", 0), o.get("sb", 0), U, o["dst"], o["sd"], B):
            return
        with np.errstate(all="ignore"):
            G = kernels.backward(W, D, o["off"], o["len"])
        _count(b, G, W, D)
        if act == "relu":               # compute_unit.bp: relu'(x) from the layer input x
            G = kernels.relu_mask(G, Xm)
        elif act != "none":
            G = b.dt.mul(G, b.dt.derivative(act, np.array(Xm)), counter=b.counter)
        dst[:] = G
    reads = [(uid, *_extent(o["a"], o["sa"], o["rows"], B))]
    if act != "none":
        reads.append((uid, *_extent(o["b"], o["sb"], o["len"], B)))
    return _Stream(b, o["u"], lambda f: cu_cycles(o["len"], o["rows"], f), reads,
                   [(uid, *_extent(o["dst"], o["sd"], o["len"], B))], compute)


def _pwu(b: Binding):
    o, U, S = b.ops, b.mem("unified"), b.mem("synapse")
    B, (uid, sid) = o["batch"], _ids(b)
    n = o["rows"] * o["cols"]

    @cache
    def views():
        return (_view(U, o["a"], o["sa"], o["rows"], B), _view(U, o["b"], o["sb"], o["cols"], B),
                S[o["syn"]:o["syn"] + n], S[o["syn"] + n:o["syn"] + n + o["rows"]],
                _in_place(U, _extent(o["a"], o["sa"], o["rows"], B),
                          _extent(o["b"], o["sb"], o["cols"], B)))

    def compute():
        D, X, Gdst, gbdst, in_place = views()
        with np.errstate(all="ignore"):
            G, gb = (kernels.gradient_rows(U, o["a"], o["sa"], U, o["b"], o["sb"], B, o["rows"],
                                           o["cols"]) if in_place else
                     kernels.gradient(np.array(D), np.array(X)))
        _count(b, G, D, X)
        Gdst[:] = G.reshape(-1)
        gbdst[:] = gb
    return _Stream(b, o["u"], lambda f: cu_cycles(o["cols"], o["rows"], f),
                   [(uid, *_extent(o["a"], o["sa"], o["rows"], B)),
                    (uid, *_extent(o["b"], o["sb"], o["cols"], B))],
                   [(sid, o["syn"], o["syn"] + n + o["rows"])], compute)


def _head(b: Binding):
    o, U = b.ops, b.mem("unified")
    B, uid = o["batch"], _ids(b)[0]
    n = 1 if b.mnemonic == "ploss" else o["rows"]
    mn = b.mnemonic

    @cache
    def views():
        return (_view(U, o["a"], o["sa"], n, B), _view(U, o["b"], o["sb"], n, B),
                None if mn == "pgs" else _view(U, o["c"], o["sc"], 2 if mn == "ploss" else n, B),
                rows(U, o["dst"], o["sd"], n, B, write=True))

    def compute():                      # the operands are read whole before dst is written
        A, Bv, C, dst = views()
        with np.errstate(all="ignore"):
            if mn == "pgs":
                out = gumbel_softmax_rows(A, Bv, counter=b.counter)
            elif mn == "pgb":
                out = head_backward_rows(Bv, A, U[o["k"]], C, dt=b.dt, counter=b.counter)
            else:
                y = td_target(C[:, 0], Bv[:, 0], C[:, 1], float(U[o["k"]]),
                              counter=b.counter)
                out = loss_error(A[:, 0], y, B, counter=b.counter)[:, None]
        dst[:] = out
    reads = [(uid, *_extent(o["a"], o["sa"], n, B)), (uid, *_extent(o["b"], o["sb"], n, B))]
    if mn != "pgs":
        reads.append((uid, *_extent(o["c"], o["sc"], 2 if mn == "ploss" else n, B)))
    return _Stream(b, o["u"], lambda f: cu_cycles(n, 1, f), reads,
                   [(uid, *_extent(o["dst"], o["sd"], n, B))], compute)


# ---- the ring: every sample's actions from every learner -----------------------------------
class _Exchange:
    """The learners' k-th rgather calls meet here (one per platform)."""

    def __init__(self, env, n):
        self.env, self.n = env, n
        self.calls = [0] * n
        self.slots: dict[int, dict] = {}

    def slot(self, i: int) -> dict:
        c = self.calls[i]
        self.calls[i] += 1
        s = self.slots.get(c)
        if s is None:
            s = self.slots[c] = {"parts": [None] * self.n, "event": self.env.event(),
                                 "count": 0}
        s["count"] += 1
        if s["count"] == self.n:
            self.slots.pop(c)
        return s


def _exchange(platform) -> _Exchange:
    st = platform.agents[0].state
    ex = st.get("marl.exchange")
    if ex is None:
        ex = st["marl.exchange"] = _Exchange(platform.env, platform.n_agents)
    return ex


def _rgather(b: Binding):
    o, U = b.ops, b.mem("unified")
    B, uid = o["batch"], _ids(b)[0]
    agent = b.agent
    ring = b.interconnect(Ring)
    src = (uid, *_extent(o["a"], o["sa"], o["n"], B))
    dst = (uid, *_extent(o["dst"], o["sd"], o["m"], B))

    def run():
        L = learner(agent)
        env = agent.platform.env
        mine = rows(U, o["a"], o["sa"], o["n"], B)
        ready, _ = L.ready(*src, B)
        ready = np.full(B, env.now, np.int64) if ready is None else np.maximum(ready, env.now)
        port = agent.unit(RING_UNIT)
        slot = _exchange(agent.platform).slot(agent.index)
        slot["parts"][agent.index] = (mine, ready, max(env.now, port.free))
        if all(p is not None for p in slot["parts"]):
            _ring_schedule(ring, slot, B)
        yield slot["event"]
        res = slot["result"]
        i = agent.index
        got = np.concatenate([p[0] for p in slot["parts"]], axis=1)
        if got.shape[1] != o["m"]:
            raise SimError(f"agent {i} PC {b.pc}: rgather expects every sample's vectors to "
                           f"add up to m={o['m']} words; the learners sent "
                           f"{'+'.join(str(p[0].shape[1]) for p in slot['parts'])}")
        rows(U, o["dst"], o["sd"], o["m"], B, write=True)[:] = got
        done, start, hop = res
        L.produced(*dst, done[i], ring=True)
        port.free = int(done[i, -1])
        busy = int(B * hop[i].sum()) if ring.n > 1 else 0
        ctrl = agent.controller
        ctrl.dynamic_busy[RING_UNIT] = ctrl.dynamic_busy.get(RING_UNIT, 0) + busy
        if ctrl.trace is not None and ring.n > 1:
            for s in range(ring.n - 1):
                for _, t, c in busy_runs(start[i, :, s], int(hop[i, s])):
                    ctrl.trace.unit(i, RING_UNIT, f"rgather hop {s + 1}", t, c, b.pc)
    return run


def _ring_schedule(ring: Ring, slot: dict, B: int) -> None:
    """The last learner to arrive schedules every sample's all-gather for all of them."""
    parts = slot["parts"]
    if any(len(p[1]) != B for p in parts):
        raise SimError(f"rgather: the learners stream batches of different sizes "
                       f"({', '.join(str(len(p[1])) for p in parts)})")
    t = ring.timing
    sizes = [p[0].shape[1] for p in parts]
    done, start, hop = stream_allgather(np.stack([p[1] for p in parts]), sizes, t.latency,
                                        t.per_beat, t.width, free=[p[2] for p in parts])
    n = ring.n
    ring.words += B * (n - 1) * sum(sizes)
    ring.hops += B * n * (n - 1)
    slot["result"] = (done, start, hop)
    slot["event"].succeed()


def _uwait(b: Binding):
    agent = b.agent

    def run():
        env = agent.platform.env
        end = max([u.free for u in agent.units.values()] + [env.now])
        if end > env.now:
            yield env.timeout(end - env.now)
    return run


# ---- timing and energy ---------------------------------------------------------------------
def _issue(b: Binding) -> Cost:
    return Cost(1, 1)


def _actions(b: Binding) -> dict:
    """Per execution: the multiply-adds and element operations of the whole batch, the weight
    words read from the CU's banks, the rows read and written."""
    o, nw = b.ops, b.knobs.neuron_words
    B = o.get("batch", 1)
    mn = b.mnemonic
    rd, wr = [], []
    c = dict.fromkeys(WORD_ACTIONS, 0)
    if mn in ("pfp", "pfpo"):
        work = o["rows"] * o["cols"]
        c.update(mac=B * work, add=B * o["rows"], sram_read=B * (work + o["rows"]),
                 act=B * o["rows"] if o.get("act", 0) else 0)
        rd, wr = [(o["a"], B * o["cols"])], [(o["dst"], B * o["rows"])]
    elif mn == "pbp":
        work = o["rows"] * o["len"]
        c.update(mac=B * work, sram_read=B * work, mul=B * o["len"] if o.get("act", 0) else 0)
        rd, wr = [(o["a"], B * o["rows"]), (o["b"], B * o["len"])], [(o["dst"], B * o["len"])]
    elif mn == "pwu":
        work = o["rows"] * o["cols"]
        c.update(mac=B * work, add=B * o["rows"], sram_read=B * (work + o["rows"]),
                 sram_write=B * (work + o["rows"]))
        rd = [(o["a"], B * o["rows"]), (o["b"], B * o["cols"])]
    elif mn in ("pgs", "pgb"):
        n = o["rows"]
        c.update(add=3 * B * n, mul=2 * B * n, act=B * n if mn == "pgs" else 0)
        rd, wr = [(o["a"], B * n), (o["b"], B * n)], [(o["dst"], B * n)]
    elif mn == "ploss":
        c.update(add=3 * B, mul=3 * B)
        rd, wr = [(o["a"], B), (o["b"], B), (o["c"], 2 * B)], [(o["dst"], B)]
    elif mn == "rgather":
        rd, wr = [(o["a"], B * o["n"])], [(o["dst"], B * o["m"])]
    words = word_actions(rd, wr, nw)
    return {k: c[k] + words[k] for k in c}


_STREAMS = {"pfp": _pfp, "pfpo": _pfp, "pbp": _pbp, "pwu": _pwu, "pgs": _head, "pgb": _head,
            "ploss": _head}
_CATEGORY = {"pfp": "FP", "pfpo": "FP", "pbp": "BP", "pwu": "WU", "pgs": "HEAD", "pgb": "HEAD",
             "ploss": "LOSS", "rgather": "RING", "uwait": "COMM"}

MODELS = {m: InstructionModel(m, "sync", f, _issue, _actions, _CATEGORY[m])
          for m, f in {**_STREAMS, "rgather": _rgather, "uwait": _uwait}.items()}

"""The hdc family's instruction models: DARL's units (the DARL paper) as instructions of an agent.

Each model's semantics is the unit model of this package (:mod:`.encoder`, :mod:`.codebook`,
:mod:`.regression`, :mod:`.updating`, :mod:`.update_cache`, :mod:`.allreduce`) on the
agent's memories, so the simulator computes what :class:`programs.darl.functional.
FunctionalHdql` computes, bit for bit. Its timing is :func:`.timing.instruction_cycles`:
every instruction takes one issue cycle and keeps its unit busy for its part of Table 1's
``L`` (results ready when the unit is done), so one training iteration

    henc s, henc s', hreg, hreg.t, hsel.mask, hsel.max, hupd, hpush

lasts exactly :func:`.timing.latency_cycles` (the two encoders and the two sets of systolic
arrays work concurrently; the iteration's last instruction, ``hpush`` or an inference's
``hsel.argmax``, holds the controller until it is done, so iterations do not overlap, as
eq. 24 counts them).

Per-agent state (``agent.state["hdc"]``): the update cache (a FIFO of the updating unit) and
the codebook (the encoder's ROM). Every instruction but ``hallreduce`` also has a kernel of
the compiled loop (:mod:`.kernels`, the same bits), which reads and writes that state's
arrays, so the loop enters Python for the all-reduce and the host only. The architecture's ``[hdc]`` table switches the three
optimisations of Fig. 10(a) (``codebook``, ``chunking``, ``delayed_update``; all true by
default); the chunk is the architecture's ``lanes``. ``hreg.c``, ``hreg.tc`` and ``hupd.p``
are the printed form of the DARL paper's eq. 9 and 14 (:mod:`.printed`, its cycles and
actions); they have no kernel, so the compiled loop hands them to their semantics.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import FixedType
from rlaccel.isa.arch import arch_table
from rlaccel.util.errors import ArchError, SimError

from rlaccel.tlm.core import Butterfly
from rlaccel.tlm.model import Binding, Cost, InstructionModel, Kernel
from rlaccel.machines.darl.tlm import kernels as _kernels
from rlaccel.machines.darl.tlm.allreduce import divide_by_agents
from rlaccel.machines.darl.tlm.codebook import Codebook
from rlaccel.machines.darl.tlm.printed import (cosine_actions, printed_cycles, regress_cosine,
                                               update_value_printed)
from rlaccel.machines.darl.tlm.regression import chunks, regress
from rlaccel.machines.darl.tlm.timing import LatencyConstants, Optimisations, instruction_cycles
from rlaccel.machines.darl.tlm.update_cache import UpdateCache
from rlaccel.machines.darl.tlm.updating import greedy

__all__ = ["MODELS", "TIMING_KEYS", "OPTIMISATION_KEYS", "optimisations", "encoders",
           "constants"]

#: [timing] keys the family reads (LatencyConstants' fields but the butterfly's hop, which is
#: the [interconnect] latency on the platform)
TIMING_KEYS = {
    "io": "cycles: read the sample from HBM, kernel control, return (fitted on Table 1)",
    "mem_read": "cycles of a BRAM/URAM read", "mul": "cycles of a pipelined 32x32 multiply",
    "add": "cycles of an adder or comparator level", "codebook": "cycles of a codebook read",
    "cordic": "cycles of a CORDIC sin/cos (codebook switched off)",
    "write": "cycles of a BRAM write",
}
#: keys of the architecture's [hdc] table: the optimisations of Fig. 10(a)
OPTIMISATION_KEYS = ("codebook", "chunking", "delayed_update")


def optimisations(arch) -> Optimisations:
    """The ``[hdc]`` table of an architecture as :class:`Optimisations` (its ``encoders``
    checked too: :func:`encoders`)."""
    table = dict(arch_table(arch, "hdc", (*OPTIMISATION_KEYS, "encoders")))
    encoders(arch)
    table.pop("encoders", None)
    for key, value in table.items():
        if not isinstance(value, bool):
            raise ArchError(f"{arch.origin}: [hdc] {key} must be true or false, not {value!r}")
    return Optimisations(**table)


def encoders(arch) -> int:
    """``[hdc] encoders``: the encoders of an agent, 2 by default (QHD's form encodes s and
    s' at once, the second on its own encoder) or 1 (the DARL paper's one encoding layer,
    Fig. 3: s' streams through the encoder after s)."""
    n = arch.extra.get("hdc", {}).get("encoders", 2)
    if isinstance(n, bool) or n not in (1, 2):
        raise ArchError(f"{arch.origin}: [hdc] encoders must be 1 or 2, not {n!r}")
    return n


def constants(timing) -> LatencyConstants:
    """The [timing] table's latency constants."""
    return LatencyConstants(**{k: int(timing[k]) for k in TIMING_KEYS})


def _fmt(b: Binding) -> FixedType:
    if not isinstance(b.dt, FixedType):
        raise ArchError(f"'{b.mnemonic}': the DARL units compute in fixed point, not "
                        f"{b.dt.name}")
    return b.dt


def _state(b: Binding) -> dict:
    """The agent's hdc state: its codebook, and its update cache once an hreg/hpush names
    the model's size."""
    st = b.agent.state.setdefault("hdc", {})
    if "codebook" not in st:
        st["codebook"] = Codebook(_fmt(b))
        st["opt"] = optimisations(b.agent.arch)
        st["encoders"] = encoders(b.agent.arch)
    return st


def _cache(b: Binding, n: int, d: int) -> UpdateCache:
    st = _state(b)
    c = st.get("cache")
    if c is None:
        c = st["cache"] = UpdateCache(n, d, _fmt(b))
    elif (c.actions, c.d) != (n, d):
        raise SimError(f"'{b.mnemonic}' at PC {b.pc}: a model of {n} x {d} but the update "
                       f"cache holds rows of {c.actions} x {c.d}")
    return c


def _chunked(b: Binding) -> None:
    """The hypervector must be a whole number of chunks (the arrays' width)."""
    try:
        chunks(b.ops["d"], b.knobs.lanes)
    except ArchError as exc:
        raise ArchError(f"'{b.mnemonic}' at PC {b.pc}: {exc} (the chunk is the "
                        f"architecture's lanes)") from None


def _hv(b: Binding):
    """A hypervector instruction's number format, operands, unified and synapse memories,
    ``n`` and ``d`` (a whole number of chunks)."""
    t, o = _fmt(b), b.ops
    _chunked(b)
    return t, o, b.mem("unified"), b.mem("synapse"), o["n"], o["d"]


def _add_row(S, base: int, a: int, n: int, d: int, ur, ui, t, counter) -> None:
    """Add ``ur`` and ``ui`` to row ``a`` of the model at ``base`` (real part, then the
    imaginary part ``n * d`` words on)."""
    for at, u in ((base, ur), (base + n * d, ui)):
        row = slice(at + a * d, at + (a + 1) * d)
        S[row] = t.add(S[row], u, counter=counter)


def _mask(U, at: int, n: int) -> np.ndarray:
    return U[at:at + n] != 0


# ---- semantics ------------------------------------------------------------------------------
def _henc(b: Binding):
    t, o, U, S, n, d = _hv(b)
    src, syn, dst = o["src"], o["syn"], o["dst"]
    book = _state(b)["codebook"]

    def run():
        P = S[syn:syn + n * d].reshape(n, d)
        e = t.matvec(P.T, U[src:src + n], counter=b.counter)
        re, im = book.lookup(e)
        S[dst:dst + d] = re
        S[dst + d:dst + 2 * d] = im
    return run


def _hld(b: Binding):
    o = b.ops
    U, S = b.mem("unified"), b.mem("synapse")
    k, src, syn = o["n"] * o["d"], o["src"], o["syn"]

    def run():
        S[syn:syn + k] = U[src:src + k]
    return run


def _hreg(b: Binding):
    t, o, U, S, n, d = _hv(b)
    src, syn, dst = o["src"], o["syn"], o["dst"]
    chunk = b.knobs.lanes
    masked = b.mnemonic in ("hreg", "hreg.c")
    cosine = b.mnemonic in ("hreg.c", "hreg.tc")          # eq. 9 as printed
    cache = _cache(b, n, d) if masked else None
    at = o.get("mask", 0)

    def run():
        qr = S[syn:syn + n * d].reshape(n, d)
        qi = S[syn + n * d:syn + 2 * n * d].reshape(n, d)
        if masked:
            cache.stream(qr, qi, _mask(U, at, n), counter=b.counter)
        re, im = S[src:src + d], S[src + d:src + 2 * d]
        U[dst:dst + n] = (regress_cosine(re, im, qr, qi, chunk=chunk, fmt=t, counter=b.counter)
                          if cosine else
                          regress(re, im, qr, qi, chunk=chunk, fmt=t, counter=b.counter))
    return run


def _hsel(b: Binding):
    t, o = _fmt(b), b.ops
    U = b.mem("unified")
    n, src, dst = o["n"], o["src"], o["dst"]
    how = b.mnemonic.split(".")[1]
    at = o.get("mask", 0)

    def run():
        v = U[src:src + n]
        if how == "argmax":
            U[dst] = t.quantize(float(greedy(v)))
        elif how == "max":
            U[dst] = v.max()
        else:
            m = _mask(U, at, n)
            if np.count_nonzero(m) != 1:
                raise SimError(f"hsel.mask at PC {b.pc}: the action mask marks "
                               f"{int(np.count_nonzero(m))} actions; a training sample marks "
                               f"exactly one")
            U[dst] = v[np.flatnonzero(m)[0]]
    return run


def _hupd(b: Binding):
    t, o = _fmt(b), b.ops
    U = b.mem("unified")

    def run():
        beta, gamma = U[o["k"]], U[o["k"] + 1]
        g = t.mul(gamma, U[o["b"]], counter=b.counter)
        e = t.sub(t.add(U[o["c"]], g, counter=b.counter), U[o["a"]], counter=b.counter)
        U[o["dst"]] = t.mul(beta, e, counter=b.counter)
    return run


def _hupd_printed(b: Binding):
    t, o = _fmt(b), b.ops
    U = b.mem("unified")

    def run():
        U[o["dst"]] = update_value_printed(U[o["a"]], U[o["b"]], U[o["c"]], beta=U[o["k"]],
                                           fmt=t, counter=b.counter)
    return run


def _hpush(b: Binding):
    t, o, U, S, n, d = _hv(b)
    src, syn, aux = o["src"], o["syn"], o["aux"]
    delayed = _state(b)["opt"].delayed_update
    cache = _cache(b, n, d)

    def run():
        m = _mask(U, o["mask"], n)
        if np.count_nonzero(m) != 1:
            raise SimError(f"hpush at PC {b.pc}: the action mask marks "
                           f"{int(np.count_nonzero(m))} actions; an update is for exactly one")
        a = int(np.flatnonzero(m)[0])
        v = U[o["v"]]
        ur = t.mul(v, S[src:src + d], counter=b.counter)
        ui = t.mul(v, S[src + d:src + 2 * d], counter=b.counter)
        _add_row(S, syn, a, n, d, ur, ui, t, b.counter)         # the shard row
        if delayed:
            cache.push(a, ur, ui)
        else:                                                   # straight into Q
            _add_row(S, aux, a, n, d, ur, ui, t, b.counter)
    return run


def _butterfly(b: Binding) -> Butterfly | None:
    net = b.agent.platform.interconnect
    n = b.agent.platform.n_agents
    if net is None and n == 1:
        return None
    return b.interconnect(Butterfly)


def _hallreduce(b: Binding):
    t, o = _fmt(b), b.ops
    S = b.mem("synapse")
    k, src = 2 * o["n"] * o["d"], o["src"]
    net, i, n = _butterfly(b), b.agent.index, b.agent.platform.n_agents
    avg = o.get("avg", 1) != 0

    def combine(lo, hi):
        return t.add(lo, hi, counter=b.counter)

    def allreduce():
        data = S[src:src + k]
        total = data.copy() if net is None else (yield from net.allreduce(i, data, combine))
        S[src:src + k] = divide_by_agents(total, n, t, counter=b.counter) if avg else total
    return allreduce


def _hsync(b: Binding):
    t, o = _fmt(b), b.ops
    S = b.mem("synapse")
    k, src, syn, aux = 2 * o["n"] * o["d"], o["src"], o["syn"], o["aux"]
    n, d = o["n"], o["d"]

    def run():
        _cache(b, n, d).clear()
        S[aux:aux + k] = t.add(S[aux:aux + k], S[src:src + k], counter=b.counter)
        S[syn:syn + k] = S[aux:aux + k]
        S[src:src + k] = 0
    return run


# ---- the compiled loop's kernels ------------------------------------------------------------
def _kernel(b: Binding) -> Kernel | None:
    """The instruction as a kernel of :mod:`.kernels` (the state its semantics keep is made
    here too: a batch member binds its semantics only when first called)."""
    m, o = b.mnemonic, b.ops
    if m not in _kernels.CODES:
        return None
    _fmt(b)
    _state(b)
    if m == "henc":
        args = (o["src"], o["syn"], o["dst"], o["n"], o["d"])
    elif m == "hld":
        args = (o["src"], o["syn"], o["n"] * o["d"])
    elif m in ("hreg", "hreg.t"):
        _chunked(b)
        if m == "hreg":
            _cache(b, o["n"], o["d"])
        args = (o["src"], o["syn"], o["dst"], o.get("mask", 0), o["n"], o["d"],
                int(m == "hreg"))
    elif m.startswith("hsel"):
        args = (o["src"], o["dst"], o.get("mask", 0), o["n"], _kernels.SEL[m])
    elif m == "hupd":
        args = (o["dst"], o["a"], o["b"], o["c"], o["k"])
    elif m == "hpush":
        _chunked(b)
        _cache(b, o["n"], o["d"])
        args = (o["src"], o["v"], o["mask"], o["syn"], o["aux"], o["n"], o["d"])
    else:                                                   # hsync
        args = (o["src"], o["syn"], o["aux"], o["n"], o["d"])
    return Kernel(_kernels.CODES[m], args)


# ---- timing and energy ----------------------------------------------------------------------
def _unit(mnemonic: str) -> str:
    return {"henc": "encoder", "hld": "loader", "hreg": "regression", "hreg.t": "regression_t",
            "hreg.c": "regression", "hreg.tc": "regression_t",
            "hsel.argmax": "select", "hsel.mask": "select", "hsel.max": "select_t",
            "hupd": "updating", "hupd.p": "updating", "hpush": "updating",
            "hsync": "updating"}[mnemonic]


def _cost(b: Binding) -> Cost:
    if b.mnemonic == "hallreduce":
        return Cost(1, 1)                      # the butterfly's cycles, in SimPy time
    st = _state(b)
    o = b.ops
    cycles = printed_cycles if b.mnemonic in _PRINTED else instruction_cycles
    cyc = cycles(b.mnemonic, n=o.get("n", 1), d=o.get("d", b.knobs.lanes),
                 chunk=b.knobs.lanes, c=constants(b.timing), opt=st["opt"])
    unit = _unit(b.mnemonic)
    if b.mnemonic == "henc" and st["encoders"] == 2:
        # two encoders (s and s'), used in turn in program order
        st["enc"] = st.get("enc", -1) + 1
        unit = "encoder2" if st["enc"] % 2 else "encoder"
    elif b.mnemonic == "henc":
        # one encoder: an encoding right after another (s' after s in a training iteration)
        # streams its K chunks after the first's, one a cycle, through the same pipeline
        pcs = st.setdefault("henc_pcs", set())
        pcs.add(b.pc)
        if b.pc - 1 in pcs:
            cyc = chunks(o["d"], b.knobs.lanes)
    if b.mnemonic in _LAST:
        # the iteration's last stage: the kernel returns when it is done (the controller
        # waits), so iterations do not overlap (eq. 24 counts M F per batch)
        return Cost(cyc, 1, ((unit, cyc),))
    return Cost(1, 2, ((unit, cyc),))


#: the printed form's instructions (:mod:`.printed`)
_PRINTED = ("hreg.c", "hreg.tc", "hupd.p")
#: the last instruction of an iteration (training: hpush; inference: hsel.argmax), and the
#: loads and stage ends, which the controller waits for
_LAST = ("hpush", "hsel.argmax", "hld", "hsync")


def _actions(b: Binding) -> dict:
    """Decode, the words each instruction moves and its arithmetic (multiply-adds of the
    arrays, multiplies of the update), as the base family's actions; the encoder's
    multiply-adds, on DSP slices, as the hdc family's ``encode_mac`` (:mod:`.energy`)."""
    o, m = b.ops, b.mnemonic
    n, d = o.get("n", 1), o.get("d", 0)
    c = {"decode": 1}
    if m == "henc":
        c.update(encode_mac=n * d, reg_read=n, sram_read=n * d + 2 * d, sram_write=2 * d)
    elif m == "hld":
        c.update(buf_read=n * d, sram_write=n * d)
    elif m in ("hreg", "hreg.t", "hreg.c", "hreg.tc"):
        c.update(mac=2 * n * d, sram_read=2 * d + 2 * n * d, reg_write=n)
        if m in _PRINTED:
            c.update(cosine_actions(n, d, b.knobs.lanes))
    elif m.startswith("hsel"):
        c.update(reg_read=n, reg_write=1)
    elif m == "hupd":
        c.update(mul=2, add=2, reg_read=5, reg_write=1)
    elif m == "hupd.p":
        c.update(mul=1, add=2, reg_read=4, reg_write=1)
    elif m == "hpush":
        c.update(mul=2 * d, add=2 * d, sram_read=4 * d, sram_write=2 * d, reg_read=1 + n)
    elif m == "hallreduce":
        c.update(sram_read=2 * n * d, sram_write=2 * n * d, add=2 * n * d)
    elif m == "hsync":
        c.update(add=2 * n * d, sram_read=4 * n * d, sram_write=6 * n * d)
    return c


_SEMANTICS = {"henc": _henc, "hld": _hld, "hreg": _hreg, "hreg.t": _hreg, "hreg.c": _hreg,
              "hreg.tc": _hreg, "hsel.argmax": _hsel, "hsel.mask": _hsel, "hsel.max": _hsel,
              "hupd": _hupd, "hupd.p": _hupd_printed, "hpush": _hpush,
              "hallreduce": _hallreduce, "hsync": _hsync}
_CATEGORY = {"henc": "ENC", "hld": "LOAD", "hreg": "REG", "hreg.t": "REG", "hreg.c": "REG",
             "hreg.tc": "REG", "hsel.argmax": "SEL", "hsel.mask": "SEL", "hsel.max": "SEL",
             "hupd": "UPD", "hupd.p": "UPD", "hpush": "UPD", "hallreduce": "ALLREDUCE",
             "hsync": "SYNC"}

MODELS = {m: InstructionModel(m, "sync" if m == "hallreduce" else "exec", f, _cost, _actions,
                              _CATEGORY[m], kernel=_kernel)
          for m, f in _SEMANTICS.items()}

"""Design-space exploration (the MADDPG paper, section IV): place the agents' learners on the SLRs and
choose every compute unit's unroll factor.

1. **Placement** (IV-B): the number of agents in an SLR is proportional to its DSPs,
   ``N_1 : DSP_1 = ... = N_S : DSP_S``, ``sum N_s = N``; in integers by the largest
   remainder (ties to the SLR with more DSPs, then the lower index). Agents fill the SLRs in
   order. An explicit ``placement`` (an SLR index per agent) overrides it.
2. **Balance** (IV-A, eqs. 4-5): the base CU -- the FP of the value network's first layer
   (the largest such layer among the agents, so every agent is balanced against the same
   latency) -- gets the base unroll factor ``f`` and takes ``T = ceil(ID OD / f)`` cycles per
   sample; every other CU gets the smallest ``F`` whose latency ``ceil(ID OD / F)`` is at most
   ``T``, i.e. ``F = ceil(ID OD / T)``. No stage is slower than the base, so the pipelines'
   throughput is ``1 / T`` (eq. 3); a stage too small to need a whole element runs at
   ``F = 1`` and idles part of the time. (The paper writes ``F_j = f ID_j OD_j / (ID_1 OD_1)``;
   rounding that up gives the same latencies with a few more elements.)
3. **Size** (eq. 6): the largest ``f`` with ``sum 5 F < DSP`` and ``sum F * bram_per_bank <
   BRAM`` in every SLR, the sums over every stage of both pipelines of every agent placed
   there. Resources grow with ``f``, so a bisection finds it.

The base factor reaches only the latencies ``ceil(ID_1 OD_1 / f)``; between them lie
latencies no ``f`` gives (for a 22 x 64 base layer: 128 at f = 11, 118 at 12, 109 at 13), so
a budget can allow a faster balanced design than the paper's search finds. ``search="latency"``
searches every integer latency ``T`` instead (every CU ``F = ceil(ID OD / T)``, the smallest
``T`` within budget): the optimum over all unroll factors, as the brute-force test checks.
``search="base"`` (default) is the paper's method.

``bram_per_bank`` is what one SRAM bank (eq. 6's ``C_SRAM = F``) costs in 36-Kb BRAMs: 0.5
by default (one 18-Kb half, the smallest block a partitioned array bank maps to).

4. **The cost model's budgets** (not in the paper's eq. 6): when the device has a
   :class:`~.device.Fabric` (the cost model's LUTs, FFs and DSPs of one element, each
   learner's fixed units, and its block RAMs: weight banks, optimiser state, stage buffers
   and FIFOs, :mod:`.onchip`), every SLR must also stay within UG949's utilisation guideline
   (LUT 70 %, FF 50 %, DSP and BRAM 80 % of the SLR). When even the slowest design breaks
   the guideline but fits the SLR's whole capacity, that design is taken and the result
   names what is over the guideline (``over_guideline``); beyond the capacity the search
   refuses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil, floor

from rlaccel.util.errors import ArchError
from rlaccel.util.numbers import is_whole

from rlaccel.machines.maddpg.tlm.compute_unit import DSP_PER_MAC, cu_cycles
from rlaccel.machines.maddpg.tlm.device import FABRIC_KINDS
from rlaccel.machines.maddpg.tlm.onchip import learner_brams
from rlaccel.machines.maddpg.tlm.pipeline import Stage, learner_stages
from rlaccel.machines.maddpg.tlm.timing import batch_cycles

__all__ = ["Learner", "DseResult", "place_agents", "unroll_factors", "latency_factors",
           "slr_use", "fabric_use", "explore", "TABLE_II", "FIG5", "placement_beside"]


#: the MADDPG paper, Table II: post-synthesis use of the whole design
TABLE_II = {"simple_speaker_listener_v4": {"task": "Cooperative Communication", "bram": 1060,
                                           "bram_percent": 49, "ff": 1_182_000,
                                           "ff_percent": 50, "lut": 774_000,
                                           "lut_percent": 65, "dsp": 3320,
                                           "dsp_percent": 49},
            "simple_tag_v3": {"task": "Predator-Prey", "bram": 1519, "bram_percent": 73,
                              "ff": 1_438_000, "ff_percent": 61, "lut": 829_000,
                              "lut_percent": 70, "dsp": 2447, "dsp_percent": 36}}


#: the MADDPG paper, section V-C and Fig. 5: learners per SLR (``per_slr`` where the text says
#: which SLR; ``occupied`` SLRs of one learner each where it does not)
FIG5 = {"simple_speaker_listener_v4": {"text": "one learner in each of two SLRs",
                                       "occupied": 2, "per_slr": None},
        "simple_tag_v3": {"text": "two learners in SLR1, one in SLR0 and one in SLR2",
                          "occupied": 3, "per_slr": [1, 2, 1]}}


def placement_beside(env: str, per_slr) -> dict | None:
    """Our learners per SLR beside Fig. 5's: ``{"ours", "paper", "same", "same_counts"}``
    (``same_counts``: the same numbers of learners per occupied SLR, whichever SLR); None
    for a task Fig. 5 does not show, or with another number of agents than the paper's."""
    f = FIG5.get(env)
    ours = list(per_slr)
    if f is None or sum(ours) != (sum(f["per_slr"]) if f["per_slr"] else f["occupied"]):
        return None
    counts = sorted(c for c in ours if c)
    paper_counts = (sorted(c for c in f["per_slr"] if c) if f["per_slr"]
                    else [1] * f["occupied"])
    return {"ours": ours, "paper": f["text"], "paper_per_slr": f["per_slr"],
            "same_counts": counts == paper_counts,
            "same": ours == f["per_slr"] if f["per_slr"] else counts == paper_counts}


@dataclass(frozen=True)
class Learner:
    """One agent's learner: its name and the stages of its value and policy pipelines."""

    name: str
    value: tuple
    policy: tuple

    @classmethod
    def from_sizes(cls, name: str, actor, critic) -> "Learner":
        s = learner_stages(actor, critic)
        return cls(name, tuple(s["value"]), tuple(s["policy"]))

    @property
    def stages(self) -> tuple:
        return self.value + self.policy


def place_agents(n_agents: int, dsp_per_slr) -> list[int]:
    """Agents per SLR, proportional to the SLRs' DSPs (largest remainder)."""
    dsp = [int(d) for d in dsp_per_slr]
    if n_agents < 1:
        raise ArchError(f"the design needs at least one agent, not {n_agents}")
    total = sum(dsp)
    if total <= 0:
        raise ArchError("the device has no DSPs to place learners on")
    quota = [n_agents * d / total for d in dsp]
    count = [floor(q) for q in quota]
    order = sorted(range(len(dsp)), key=lambda s: (-(quota[s] - count[s]), -dsp[s], s))
    for s in order[:n_agents - sum(count)]:
        count[s] += 1
    return count


def _base_work(learners) -> int:
    works = [st.work for lr in learners for st in lr.value
             if st.kind == "FP" and st.net == "q" and st.layer == 1]
    if not works:
        raise ArchError("no learner has a value network (no 'FP q L1' stage) to take the "
                        "base unroll factor")
    return max(works)


def _positive(v, what: str) -> None:
    if not is_whole(v):
        raise ArchError(f"{what} must be a positive integer, not {v!r}")


def unroll_factors(stages, f: int, base_work: int) -> list[int]:
    """Every stage's unroll factor for base factor ``f`` (module rule 2); the base CU itself
    (the value network's first-layer FP, of ``base_work``) gets ``f``."""
    _positive(f, "the base unroll factor")
    T = ceil(base_work / f)
    return [f if st.work == base_work and st.kind == "FP" and st.layer == 1 and st.net == "q"
            else ceil(st.work / T) for st in stages]


def latency_factors(stages, T: int) -> list[int]:
    """Every stage's smallest unroll factor for a latency of at most ``T`` cycles."""
    _positive(T, "the target latency")
    return [ceil(st.work / T) for st in stages]


def fabric_use(learners, slr_of, factors, n_slrs: int, fabric) -> list[dict]:
    """``{"lut", "ff", "dsp", "bram"}`` the learners use in every SLR by the cost model:
    their elements, their on-chip memories (:func:`~.onchip.learner_brams`) and their fixed
    units; also ``bram_parts``, the memories by kind."""
    use = [{**dict.fromkeys(FABRIC_KINDS, 0.0), "bram_parts": {}} for _ in range(n_slrs)]
    for lr, s in zip(learners, slr_of):
        F = {p: factors(list(getattr(lr, p))) for p in ("value", "policy")}
        n = sum(F["value"]) + sum(F["policy"])
        mem = learner_brams(lr, F)
        for k in FABRIC_KINDS:
            use[s][k] += fabric.learner[k] + (mem["total"] if k == "bram"
                                               else n * fabric.element[k])
        for k, v in mem.items():
            if k != "total":
                use[s]["bram_parts"][k] = use[s]["bram_parts"].get(k, 0.0) + v
    return use


def slr_use(learners, slr_of, factors, n_slrs: int,
            bram_per_bank: float) -> list[tuple[int, float]]:
    """``(DSPs, BRAMs)`` the learners use in every SLR; ``factors(stages)`` gives a stage
    list's unroll factors."""
    use = [[0, 0.0] for _ in range(n_slrs)]
    for lr, s in zip(learners, slr_of):
        F = factors(lr.stages)
        use[s][0] += DSP_PER_MAC * sum(F)
        use[s][1] += bram_per_bank * sum(F)
    return [(d, b) for d, b in use]


@dataclass
class DseResult:
    """The chosen design: base factor, every CU's unroll factor and cycles, per-SLR use."""

    device: object
    f: int
    base_work: int
    bram_per_bank: float
    placement: list
    learners: list
    search: str = "base"
    factors: dict = field(default_factory=dict)       # learner -> {"value": [...], ...}
    slr: list = field(default_factory=list)
    over_guideline: list = field(default_factory=list)  # "SLR0 lut", ... (module rule 4)

    def fabric(self) -> list[dict]:
        """Every SLR's LUTs, FFs, DSPs and BRAMs by the cost model, with the guideline's
        budget and the capacity (empty without a :class:`~.device.Fabric`): ``lut_used``,
        ``lut_budget``, ``lut_capacity``, ``ff_...``, and the cost model's ``dsp_model``,
        ``bram_model`` (beside eq. 6's ``dsp_used``, ``bram_used``) with their budgets and
        ``bram_parts``."""
        fab = self.device.fabric
        if fab is None:
            return []
        by_stages = {}
        for lr in self.learners:
            for p in ("value", "policy"):
                by_stages[tuple(getattr(lr, p))] = self.factors[lr.name][p]
        use = fabric_use(self.learners, self.placement, lambda st: by_stages[tuple(st)],
                         len(self.device.slrs), fab)
        out = []
        for u, b, c in zip(use, fab.budget, fab.capacity):
            d = {"lut_used": u["lut"], "lut_budget": b["lut"], "lut_capacity": c["lut"],
                 "ff_used": u["ff"], "ff_budget": b["ff"], "ff_capacity": c["ff"]}
            for k in ("dsp", "bram"):
                d.update({f"{k}_model": u[k], f"{k}_model_budget": b[k],
                          f"{k}_model_capacity": c[k]})
            d["bram_parts"] = u["bram_parts"]
            out.append(d)
        return out

    @property
    def stage_cycles(self) -> int:
        """The slowest stage's cycles per sample (eq. 3's denominator)."""
        return max(cu_cycles(st.id, st.od, F)
                   for lr in self.learners for p in ("value", "policy")
                   for st, F in zip(getattr(lr, p), self.factors[lr.name][p]))

    @property
    def samples_per_s(self) -> float:
        """Pipeline throughput at the clock (eq. 3)."""
        return self.device.clock_mhz * 1e6 / self.stage_cycles

    def cycles(self, name: str, pipeline: str) -> list[int]:
        lr = next(x for x in self.learners if x.name == name)
        return [cu_cycles(st.id, st.od, F)
                for st, F in zip(getattr(lr, pipeline), self.factors[name][pipeline])]

    def batch_cycles(self, batch: int) -> int:
        """Cycles for every learner's two pipelines to stream a batch (the slowest one)."""
        return max(batch_cycles(self.cycles(lr.name, p), batch)
                   for lr in self.learners for p in ("value", "policy"))

    @property
    def dsp_used(self) -> int:
        return sum(s["dsp_used"] for s in self.slr)

    @property
    def bram_used(self) -> float:
        return sum(s["bram_used"] for s in self.slr)

    def _cost_model(self, fab: list) -> dict | None:
        """The whole design by the cost model (every SLR summed), with the budgets."""
        if not fab:
            return None
        out = {"lut": sum(s["lut_used"] for s in fab), "ff": sum(s["ff_used"] for s in fab),
               "dsp": sum(s["dsp_model"] for s in fab),
               "bram": sum(s["bram_model"] for s in fab), "bram_parts": {}}
        for s in fab:
            for k, v in s["bram_parts"].items():
                out["bram_parts"][k] = out["bram_parts"].get(k, 0.0) + v
        return out

    def as_dict(self) -> dict:
        fab = self.fabric()
        d = self.device
        return {
            "device": d.name, "clock_mhz": d.clock_mhz, "search": self.search, "f": self.f,
            "base_work": self.base_work, "bram_per_bank": self.bram_per_bank,
            "stage_cycles": self.stage_cycles, "samples_per_s": self.samples_per_s,
            "dsp_used": self.dsp_used, "dsp_total": d.dsp,
            "dsp_percent": 100.0 * self.dsp_used / d.dsp,
            "bram_used": self.bram_used, "bram_total": d.bram,
            "bram_percent": 100.0 * self.bram_used / d.bram,
            "slr": [{**s, **f} for s, f in zip(self.slr, fab)] or self.slr,
            "cost_model": self._cost_model(fab),
            "over_guideline": list(self.over_guideline),
            "unroll_factors": {
                lr.name: {p: [{"stage": st.name, "id": st.id, "od": st.od, "F": F,
                               "cycles": cu_cycles(st.id, st.od, F)}
                              for st, F in zip(getattr(lr, p), self.factors[lr.name][p])]
                          for p in ("value", "policy")}
                for lr in self.learners},
        }


def explore(learners, device, *, placement=None, bram_per_bank: float = 0.5,
            search: str = "base") -> DseResult:
    """The design of module rules 1-3 for ``learners`` (:class:`Learner`) on ``device``
    (:class:`~.device.Device`); ``search`` is ``"base"`` (the paper's largest base factor) or
    ``"latency"`` (the smallest balanced latency). An :class:`ArchError` says which SLR
    cannot hold its learners even with one element per CU."""
    learners = list(learners)
    n_slrs = len(device.slrs)
    if search not in ("base", "latency"):
        raise ArchError(f"search must be 'base' or 'latency', not {search!r}")
    if placement is None:
        counts = place_agents(len(learners), [s.dsp for s in device.slrs])
        slr_of = [s for s, c in enumerate(counts) for _ in range(c)]
    else:
        slr_of = list(placement)
        if len(slr_of) != len(learners) or any(not 0 <= s < n_slrs for s in slr_of):
            raise ArchError(f"placement {slr_of!r}: need one SLR index 0..{n_slrs - 1} per "
                            f"agent ({len(learners)} agents)")
    base = _base_work(learners)
    top = max(st.work for lr in learners for st in lr.stages)
    # design k = 1, 2, ...: a larger k is faster and needs more (never fewer) elements
    if search == "base":
        def factors_of(k):
            return lambda stages: unroll_factors(stages, k, base)
        k_max = base                       # beyond f = base every stage takes one cycle
    else:
        def factors_of(k):
            return lambda stages: latency_factors(stages, top + 1 - k)
        k_max = top

    fab = device.fabric

    def problems(k: int, fabric_limit: str | None = "budget") -> list[str]:
        """What breaks eq. 6 for design k, and the LUT and FF ``fabric_limit`` (the
        guideline's "budget", the "capacity", or None) of module rule 4 (nothing: it fits)."""
        bad = []
        for s, (dsp, bram) in enumerate(slr_use(learners, slr_of, factors_of(k), n_slrs,
                                                bram_per_bank)):
            slr = device.slrs[s]
            if dsp and not (dsp < slr.dsp and bram < slr.bram):
                names = [lr.name for lr, x in zip(learners, slr_of) if x == s]
                bad.append(f"{slr.name} ({', '.join(names)}) needs {dsp} DSPs and {bram:g} "
                           f"BRAMs but has {slr.dsp} and {slr.bram:g}")
        if fab is not None and fabric_limit is not None:
            limits = fab.budget if fabric_limit == "budget" else fab.capacity
            for s, (use, lim) in enumerate(zip(fabric_use(learners, slr_of, factors_of(k),
                                                          n_slrs, fab), limits)):
                for key in FABRIC_KINDS:
                    if s in slr_of and use[key] > lim[key]:
                        bad.append(f"{device.slrs[s].name} needs {use[key]:,.1f} "
                                   f"{key.upper()}s but has {lim[key]:,.0f} "
                                   f"({'UG949' if fabric_limit == 'budget' else 'the SLR'})")
        return bad

    slowest = "base factor 1" if search == "base" else "one element per compute unit"
    over: list[str] = []
    too_small = problems(1)
    if too_small:
        beyond = problems(1, "capacity")
        if beyond:
            raise ArchError(f"device {device.name} is too small for {len(learners)} learners "
                            f"even with the slowest balanced design ({slowest}): "
                            + "; ".join(beyond))
        over = too_small                  # over UG949's guideline, within the capacity
    lo, hi = 1, k_max                     # problems(lo) is empty (or lo is the slowest)
    if not problems(hi):
        lo = hi
    while hi - lo > 1:                    # problems(hi) is not empty
        mid = (lo + hi) // 2
        if problems(mid):
            hi = mid
        else:
            lo = mid
    factors = factors_of(lo)
    f = lo if search == "base" else ceil(base / (top + 1 - lo))
    res = DseResult(device, f, base, bram_per_bank, slr_of, learners, search=search,
                    over_guideline=over)
    for lr in learners:
        res.factors[lr.name] = {p: factors(list(getattr(lr, p))) for p in ("value", "policy")}
    use = slr_use(learners, slr_of, factors, n_slrs, bram_per_bank)
    res.slr = [{"name": slr.name,
                "agents": [lr.name for lr, x in zip(learners, slr_of) if x == s],
                "dsp_used": use[s][0], "dsp_budget": slr.dsp,
                "bram_used": use[s][1], "bram_budget": slr.bram}
               for s, slr in enumerate(device.slrs)]
    return res

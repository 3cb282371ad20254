"""Design-space exploration (seed 003, section IV): proportional placement, balanced unroll
factors (eq. 5), the largest base factor within every SLR's budget (eq. 6) -- checked by
brute force over every unroll-factor vector on a small made-up device -- and the cost model's
LUTs and flip-flops within UG949's guideline (rule 4)."""

from dataclasses import replace
from math import ceil

import numpy as np
import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.maddpg.tlm.compute_unit import cu_cycles
from rlaccel.isa.arch import load_arch
from rlaccel.machines.maddpg.tlm.device import Device, Slr, device_of
from rlaccel.machines.maddpg.tlm.dse import (Learner, explore, latency_factors, place_agents,
                                              slr_use, unroll_factors)

#: the U200 of the architecture files, with eq. 6's budgets alone (the paper's search): whole,
#: and with a Vitis shell in SLR1
U200 = replace(device_of(load_arch("maddpg")), fabric=None)
U200_SHELL = replace(device_of(load_arch("maddpg-shell")), fabric=None)
#: the same with the cost model's LUTs and flip-flops (what a run's design search uses)
U200_FABRIC = device_of(load_arch("maddpg"))

#: L = 1 networks; stage works 6, 10, 10, 1, 10 (value) and 6, 10, 3, 6 (policy); the base
#: CU (FP q L1) has work 10, so base factors reach latencies 10, 5, 4, 3, 2 and 1 only
TINY = Learner.from_sizes("tiny", (2, 3), (10, 1))


def test_placement_is_proportional_to_dsps():
    """N_s : DSP_s equal for every SLR, in integers by the largest remainder (ties to more
    DSPs, then the lower index)."""
    assert place_agents(2, [2280, 2280, 2280]) == [1, 1, 0]      # seed: two SLRs used
    assert place_agents(4, [2280, 2280, 2280]) == [2, 1, 1]      # seed: 1, 2, 1
    assert place_agents(4, [2280, 1320, 2280]) == [2, 1, 1]      # quotas 1.55, 0.90, 1.55
    assert place_agents(3, [100, 50, 50]) == [1, 1, 1]           # quotas 1.5, 0.75, 0.75
    assert place_agents(4, [100, 50, 50]) == [2, 1, 1]
    assert place_agents(5, [0, 10]) == [0, 5]


def test_unroll_factors_balance_to_the_base():
    """Base f = 12 on the 22 x 64 first value layer: T = ceil(1408 / 12) = 118, so a 64 x 64
    stage needs ceil(4096 / 118) = 35 elements and a 64 x 1 stage one; no stage is slower."""
    speaker = Learner.from_sizes("speaker", (3, 64, 64, 3), (22, 64, 64, 1))
    F = unroll_factors(speaker.value, 12, 1408)
    assert F[3:9] == [12, 35, 1, 12, 35, 1]
    assert max(cu_cycles(s.id, s.od, f) for s, f in zip(speaker.stages,
                                                      unroll_factors(speaker.stages, 12, 1408))
               ) == 118
    assert latency_factors(speaker.value[3:6], 114) == [13, 36, 1]


def brute_force_bottleneck(learners, slr):
    """The smallest bottleneck latency any integer unroll factors reach within the SLR's
    budget (eq. 6, strict, a bank costing half a BRAM), trying every vector: axis j of the
    grid is stage j's F = 1..ID OD (6.5 million vectors for TINY, by broadcasting)."""
    stages = [s for lr in learners for s in lr.stages]
    n = len(stages)
    total = np.zeros((1,) * n, dtype=np.int32)
    worst = np.zeros((1,) * n, dtype=np.int32)
    for j, st in enumerate(stages):
        shape = (1,) * j + (-1,) + (1,) * (n - j - 1)
        F = np.arange(1, st.work + 1, dtype=np.int32).reshape(shape)
        total = total + F
        worst = np.maximum(worst, -(-st.work // F))             # ceil(work / F)
    ok = (5 * total < slr.dsp) & (0.5 * total < slr.bram)
    return int(worst[ok].min()) if ok.any() else None


REACHABLE = sorted({ceil(10 / f) for f in range(1, 11)})       # 1, 2, 3, 4, 5, 10


@pytest.mark.parametrize("dsp, bram", [(50, 100), (70, 100), (90, 100), (120, 100),
                                       (200, 100), (400, 100), (400, 30)])
def test_dse_against_brute_force(dsp, bram):
    """Two SLRs, a tiny learner in each. search="latency" reaches the best bottleneck of any
    unroll-factor vector within budget; the seed's base-factor search reaches the best
    latency a base factor can give, the smallest of 10, 5, 4, 3, 2, 1 not below it."""
    dev = Device("made-up", 100.0, (Slr("A", dsp, bram), Slr("B", dsp, bram)))
    learners = [TINY, Learner("tiny2", TINY.value, TINY.policy)]
    best = max(brute_force_bottleneck([lr], s) for lr, s in zip(learners, dev.slrs))
    exact = explore(learners, dev, search="latency")
    seed = explore(learners, dev)
    assert exact.stage_cycles == best
    assert seed.stage_cycles == min(t for t in REACHABLE if t >= best)
    for res in (exact, seed):
        for s in res.slr:
            assert s["dsp_used"] < s["dsp_budget"] and s["bram_used"] < s["bram_budget"]


def test_the_base_search_can_miss_a_latency():
    """70 DSPs: thirteen elements (65 DSPs) give every stage a latency of at most 6, but no
    base factor gives 6 (f = 1: 10, f = 2: 5 needs sixteen elements = 80 DSPs)."""
    dev = Device("made-up", 100.0, (Slr("A", 70, 100),))
    seed, exact = explore([TINY], dev), explore([TINY], dev, search="latency")
    assert (seed.f, seed.stage_cycles, seed.dsp_used) == (1, 10, 45)
    assert (exact.f, exact.stage_cycles, exact.dsp_used) == (2, 6, 65)


def check_design(res, device):
    """eq. 6 in every SLR; eq. 5: no stage slower than the base CU; f + 1 would break eq. 6
    (a device without limits takes a larger f)."""
    T = ceil(res.base_work / res.f)
    for lr in res.learners:
        for p in ("value", "policy"):
            assert max(res.cycles(lr.name, p)) <= T
    for s, slr in zip(res.slr, device.slrs):
        assert s["dsp_used"] < slr.dsp and s["bram_used"] < slr.bram
    more = slr_use(res.learners, res.placement,
                   lambda st: unroll_factors(st, res.f + 1, res.base_work), len(device.slrs),
                   res.bram_per_bank)
    assert any(d >= slr.dsp or b >= slr.bram for (d, b), slr in zip(more, device.slrs) if d)


def cooperative_communication():
    return [Learner.from_sizes("speaker_0", (3, 64, 64, 3), (22, 64, 64, 1)),
            Learner.from_sizes("listener_0", (11, 64, 64, 5), (22, 64, 64, 1))]


def predator_prey():
    return [Learner.from_sizes(f"adversary_{i}", (16, 64, 64, 5), (82, 64, 64, 1))
            for i in range(3)] + [Learner.from_sizes("agent_0", (14, 64, 64, 5),
                                                     (19, 64, 64, 1))]


@pytest.mark.parametrize("task", [cooperative_communication, predator_prey])
@pytest.mark.parametrize("device", [U200, U200_SHELL])
def test_seed_tasks_on_the_u200(task, device):
    res = explore(task(), device)
    check_design(res, device)
    d = res.as_dict()
    assert [len(s["agents"]) for s in d["slr"]] == place_agents(len(task()),
                                                                 [s.dsp for s in device.slrs])
    assert {"unroll_factors", "slr"} <= set(d)
    assert all({"dsp_used", "dsp_budget", "bram_used", "bram_budget"} <= set(s)
               for s in d["slr"])


@pytest.mark.parametrize("task, search, want", [
    (cooperative_communication, "base", (12, 118, 4295)),
    (cooperative_communication, "latency", (13, 114, 4450)),
    (predator_prey, "base", (16, 328, 4105)),
    (predator_prey, "latency", (17, 316, 4265)),
])
def test_recorded_designs(task, search, want):
    """The designs machines/maddpg/README.md records against Table II (f, cycles per sample, DSPs)."""
    res = explore(task(), U200, search=search)
    assert (res.f, res.stage_cycles, res.dsp_used) == want


@pytest.mark.parametrize("task, want", [
    (cooperative_communication, (4, 352, 1525)),
    (predator_prey, (5, 1050, 1440)),
])
def test_luts_bind_the_design_within_every_budget(task, want):
    """With the cost model's element (1,474 LUTs, 5.75 DSPs: Vitis HLS's fp32 operators in
    this project's unit) UG949's 70 % of an SLR's LUTs binds first: every SLR's LUTs, FFs,
    DSPs and BRAMs by the cost model stay within the guideline, and one more base factor
    would break the LUTs' budget."""
    res = explore(task(), U200_FABRIC)
    assert (res.f, res.stage_cycles, res.dsp_used) == want
    assert res.over_guideline == []
    slrs = res.as_dict()["slr"]
    for s in slrs:
        assert s["lut_used"] <= s["lut_budget"] and s["ff_used"] <= s["ff_budget"]
        assert s["dsp_model"] <= s["dsp_model_budget"]
        assert s["bram_model"] <= s["bram_model_budget"]
    from rlaccel.machines.maddpg.tlm.dse import fabric_use, unroll_factors
    more = fabric_use(res.learners, res.placement,
                      lambda st: unroll_factors(st, res.f + 1, res.base_work),
                      len(U200_FABRIC.slrs), U200_FABRIC.fabric)
    assert any(u["lut"] > b["lut"] for u, b in zip(more, U200_FABRIC.fabric.budget))


def test_an_element_too_big_for_the_guideline_takes_the_slowest_design():
    """Elements of four times the LUTs: base factor 1 is over UG949's guideline but within
    the SLRs' capacity; that design is taken and the result says where."""
    fab = U200_FABRIC.fabric
    big = replace(U200_FABRIC, fabric=replace(fab, element={**fab.element,
                                                            "lut": 4 * fab.element["lut"]}))
    res = explore(cooperative_communication(), big)
    assert res.f == 1 and [m.split()[0] for m in res.over_guideline] == ["SLR0", "SLR1"]
    assert all("LUTs" in m for m in res.over_guideline)


def test_a_fabric_within_the_guideline_sizes_the_design():
    """Elements of a fifth of the LUTs: the search stops below eq. 6's bound, where the
    next budget (DSPs at 80 %, or LUTs) binds, and nothing is over the guideline; without
    the cost model eq. 6 alone sizes it."""
    fab = U200_FABRIC.fabric
    small = replace(U200_FABRIC, fabric=replace(fab, element={**fab.element,
                                                              "lut": fab.element["lut"] / 5}))
    res, eq6 = explore(cooperative_communication(), small), explore(cooperative_communication(),
                                                                   U200)
    assert explore(cooperative_communication(), U200_FABRIC).f < res.f < eq6.f
    assert res.over_guideline == []
    for s in res.as_dict()["slr"]:
        assert s["lut_used"] <= s["lut_budget"] and s["dsp_model"] <= s["dsp_model_budget"]
    bigger = explore(cooperative_communication(), replace(small, fabric=None))
    assert bigger.f == eq6.f


def test_device_too_small():
    dev = Device("little", 100.0, (Slr("SLR0", 100, 10), Slr("SLR1", 30, 10)))
    with pytest.raises(ArchError, match=r"device little is too small for 2 learners even with "
                                        r"the slowest balanced design \(base factor 1\): SLR0 \(speaker_0, "
                                        r"listener_0\) needs 490 DSPs and 49 BRAMs but has 100 "
                                        r"and 10"):
        explore(cooperative_communication(), dev)


def test_placement_errors():
    with pytest.raises(ArchError, match=r"placement \[0, 5\]: need one SLR index 0..2"):
        explore(cooperative_communication(), U200, placement=[0, 5])
    with pytest.raises(ArchError, match="at least one agent"):
        place_agents(0, [1])
    with pytest.raises(ArchError, match="search must be 'base' or 'latency', not 'f'"):
        explore(cooperative_communication(), U200, search="f")


def test_the_device_comes_from_the_architecture(tmp_path):
    """The U200's budgets are written once, in machines/maddpg/archs/maddpg.toml (Table II's totals);
    the shell variant changes SLR1 only; a broken [device] table is a clear error."""
    assert [(s.name, s.dsp, s.bram) for s in U200.slrs] == [("SLR0", 2280, 720.0),
                                                             ("SLR1", 2280, 720.0),
                                                             ("SLR2", 2280, 720.0)]
    assert (U200.dsp, U200.bram, U200.clock_mhz, U200.bram_per_bank, U200.search) == \
        (6840, 2160, 300.0, 0.5, "base")
    assert [s.dsp for s in U200_SHELL.slrs] == [2280, 1320, 2280] and U200_SHELL.dsp == 6840
    p = tmp_path / "bad.toml"
    p.write_text('inherit = "maddpg"\n[machine]\n[[device.slr]]\nname = "X"\ndsp = 10\n')
    with pytest.raises(ArchError, match=r"bad.toml: \[\[device.slr\]\] 1: missing bram; an "
                                        r"SLR has name, dsp, bram"):
        device_of(load_arch(str(p)))
    p.write_text('inherit = "maddpg"\n[machine]\n[device]\nsearch = "f"\n')
    with pytest.raises(ArchError, match=r"\[device\] search must be 'base' or 'latency', "
                                        r"not 'f'"):
        device_of(load_arch(str(p)))
    with pytest.raises(ArchError, match=r"adhdp.toml: the design-space exploration needs a "
                                        r"\[device\] table"):
        device_of(load_arch("adhdp"))

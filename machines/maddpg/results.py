"""What a MADDPG run reports beside the platform's figures: learning, eq. 7's throughput,
the pipelines as simulated, every compute unit, the ring, the resources against the device.

* ``learning`` -- per episode the sum over agents of their returns (``returns``, openai's
  episode reward), Predator-Prey's touches, means over windows, the final window's mean;
* ``ips`` -- eq. 7: ``system = 1 / (T_SG + T_MU)`` per iteration (one environment step and
  one update round, as the MADDPG paper's Fig. 2 and 7 count them), with ``t_sg_s`` (sample
  generation per step, measured), ``t_sample_s`` (replay sampling per round, measured; both
  wall clock, and as this process's CPU time in ``*_cpu_s`` and ``system_cpu_time``),
  ``learner_s`` (the learners' simulated time per round: the batch over the host link, the
  pipelines, applying the gradients, the policies back, the barrier) and ``t_mu_s``
  (``t_sample_s + learner_s``);
* ``pipelines`` -- learner 0's last round as simulated: each pipeline's first sample through
  (fill), the interval between samples leaving (steady state), the batch, the bottleneck
  unit, next to eq. 3's closed form;
* ``learners`` -- every compute unit: stage, unroll factor, cycles per sample, busy cycles
  and utilisation over the rounds' training time; DSPs and banks of what the program
  configured; the ring's exposed cycles;
* ``ring`` -- the per-sample all-gather next to the slowest stage (hidden or not), the
  cycles the ring delayed the units;
* ``dse`` -- the design the run used (unroll factors, per-SLR DSP and BRAM against the
  budgets).
"""

from __future__ import annotations

import numpy as np

from rlaccel.machines.maddpg.tlm.compute_unit import DSP_PER_MAC
from rlaccel.machines.maddpg.tlm.onchip import learner_brams
from rlaccel.machines.maddpg.tlm.ring import allgather_cycles
from rlaccel.machines.maddpg.tlm.timing import batch_cycles
from rlaccel.machines.maddpg.tlm.learner import RING_UNIT, unit_name
from rlaccel.tlm.cost import resources_of
from rlaccel.tlm.cost.resources import beside
from rlaccel.tlm.results import move_timing

__all__ = ["results", "summary", "progress_lines", "learning", "describe_pipeline",
           "design_resources", "TIMING"]

#: the figures measured on this computer, or derived from them (eq. 7's IPS with this
#: host's T_SG): the report's ``timing``
TIMING = ("ips.system", "ips.system_cpu_time", "ips.t_sg_s", "ips.t_sample_s",
          "ips.t_sg_cpu_s", "ips.t_sample_cpu_s", "ips.t_mu_s", "host_timeline.measured_s",
          "efficiency.ips_per_w")


def learning(host) -> dict:
    tr = host.training
    c = tr.curve
    w = host.window
    out = {"episodes": tr.episodes, "steps": tr.steps, "rounds": tr.rounds, "window": w,
           "returns": list(c.returns), "curve": c.window_means(w),
           "final": float(np.mean(c.returns[-w:])) if c.returns else None,
           "agents": [s.name for s in host.specs],
           "final_agents": (np.mean(np.asarray(c.agent_returns[-w:]), axis=0).tolist()
                            if c.agent_returns else None)}
    if c.touches:
        t = np.asarray(c.touches)
        out["touches"] = list(c.touches)
        out["touches_curve"] = [float(t[j * w:(j + 1) * w].mean()) for j in range(len(t) // w)]
        out["final_touches"] = float(t[-w:].mean())
    return out


def progress_lines(host) -> list[str]:
    tr, w, lines = host.training, host.window, []
    while host.reported + w <= tr.episodes:
        a = host.reported
        r = tr.curve.returns[a:a + w]
        t = tr.curve.touches[a:a + w]
        lines.append(f"episodes {a + 1:6d}-{a + w:6d}: mean reward {np.mean(r):8.2f}"
                     + (f", touches {np.mean(t):5.2f}" if t else "")
                     + f" ({tr.rounds} rounds)")
        host.reported += w
    return lines


def _mark(ctrl, k: int) -> tuple[int, int]:
    m = ctrl.marks.get(k)
    return (m[0], m[1]) if m else (0, 0)


def _pipeline(L, names, units, B) -> dict:
    """Fill, steady state and bottleneck of the units ``units`` (one pipeline, in dataflow
    order) in learner L's last round, next to eq. 3's closed form."""
    last = [L.last.get(u) for u in units]
    if any(x is None for x in last):
        return {}
    T = [x[2] for x in last]
    t0 = int(last[0][0][0])
    out_done = last[-1][1]
    done = np.max(np.stack([x[1] for x in last]), axis=0)     # a sample leaves the pipeline
    gaps = np.diff(done)
    slow = int(np.argmax(T))
    steady = float(np.median(gaps)) if len(gaps) else None
    return {"units": len(units), "first_sample_cycles": int(done[0] - t0),
            "steady_interval_cycles": steady,
            "batch_cycles": int(done.max() - t0), "last_stage_done": int(out_done[-1] - t0),
            "bottleneck": names[units[slow]], "bottleneck_cycles": T[slow],
            "bottleneck_units": int(sum(t == T[slow] for t in T)),
            # samples leave slower than the slowest unit works: they wait for the ring
            "limited_by": "ring" if steady is not None and steady > T[slow] else "stage",
            "eq3_chain_batch_cycles": batch_cycles(T, B)}


def describe_pipeline(name: str, p: dict) -> str:
    """One line on a pipeline as simulated: fill, steady state, what limits it."""
    n = p["bottleneck_units"]
    slowest = (f"{p['bottleneck']}" + (f" and {n - 1} more" if n > 1 else "")
               + f", {p['bottleneck_cycles']} cycles")
    why = (f"bottleneck {slowest}" if p["limited_by"] == "stage" else
           f"the ring: samples wait for the other learners' actions; slowest stage {slowest}")
    return (f"{name} pipeline ({p['units']} units): first sample {p['first_sample_cycles']} "
            f"cycles, then one per {p['steady_interval_cycles']:g} ({why}), batch "
            f"{p['batch_cycles']} cycles (eq. 3 chain: {p['eq3_chain_batch_cycles']})")


def results(m: dict, run, res, platform) -> dict:
    host = run.state
    tr = host.training
    design = run.design
    clock = platform.arch.knobs.clock_mhz * 1e6
    ctrls = [a.controller for a in platform.agents]
    cyc1, rounds = _mark(ctrls[0], 1)
    cyc2, _ = _mark(ctrls[0], 2)
    t_sample = tr.t_sample / tr.rounds if tr.rounds else None
    cpu_sample = host.cpu_sample / tr.rounds if tr.rounds else None
    probe = not rounds and tr.steps > 0 and len(tr.replay) > 0
    if probe:               # no round in the run: time one on the buffer it left
        cyc1, cyc2, t_sample, cpu_sample = _probe(run, platform)
    n = rounds or int(probe)
    t_sg = tr.t_sg / tr.steps if tr.steps else None
    learner_s = cyc1 / n / clock if n else None
    t_mu = (t_sample + learner_s) if n else None
    cpu_sg = host.cpu_sg / tr.steps if tr.steps else None
    ips = {"system": 1.0 / (t_sg + t_mu) if n and t_sg else None,
           "system_cpu_time": (1.0 / (cpu_sg + cpu_sample + learner_s)
                               if n and cpu_sg else None),
           "t_sg_s": t_sg, "t_sample_s": t_sample, "t_sg_cpu_s": cpu_sg,
           "t_sample_cpu_s": cpu_sample, "learner_s": learner_s,
           "compute_s": cyc2 / n / clock if n else None,
           "transfer_s": _round_link(ctrls[0]) / clock, "t_mu_s": t_mu, "rounds": rounds,
           "probe": probe,
           "iteration": "one environment step and one update round (eq. 7)"}
    B = host.cfg.batch
    learners, pipes = [], {}
    for a, c in zip(platform.agents, ctrls):
        L = a.state.get("marl.learner")
        if L is None:
            continue
        name = host.specs[a.index].name
        stages = _stage_names(design, name)
        train, n = _mark(c, 2)
        units = []
        for u, f in sorted(L.factors.items()):
            busy = c.dynamic_busy.get(unit_name(u), 0)
            units.append({"unit": unit_name(u), "stage": stages[u] if u < len(stages) else "",
                          "F": f, "cycles_per_sample": L.last.get(u, (0, 0, None))[2],
                          "busy_cycles": busy,
                          "utilization": busy / train if train else 0.0})
        cus = [u for u in L.factors if u < 29]
        learners.append({
            "agent": name, "units": units,
            "dsp": DSP_PER_MAC * sum(L.factors[u] for u in cus),
            "banks": sum(L.factors[u] for u in cus),
            "head_elements": sum(f for u, f in L.factors.items() if u >= 29),
            "ring_busy_cycles": c.dynamic_busy.get(RING_UNIT, 0),
            "ring_exposed_cycles_per_round": L.ring_wait / n if n else 0.0,
            "training_cycles_per_round": train / n if n else None})
        if a.index == 0 and rounds:
            pipes = {"value": _pipeline(L, stages, list(range(15)), B),
                     "policy": _pipeline(L, stages, list(range(15, 29)), B)}
    _label_trace(platform, design, host.specs[0].name)
    net = platform.interconnect
    sizes = [s.act_dim for s in host.specs]
    per_sample = max(allgather_cycles(sizes, net.timing.latency, net.timing.per_beat,
                                      net.timing.width)) if net is not None else 0
    slowest = design.stage_cycles
    ring = {"per_sample_allgather_cycles": per_sample, "slowest_stage_cycles": slowest,
            "hidden_by_formula": per_sample <= slowest,
            "exposed_cycles_per_round": [lr["ring_exposed_cycles_per_round"]
                                         for lr in learners],
            "words": net.words if net is not None else 0}
    d = design.as_dict()
    return move_timing({"learning": learning(host), "ips": ips, "pipelines": pipes,
                        "efficiency": efficiency(res, n, len(learners), B, ips["system"]),
                        "learners": learners, "ring": ring, "dse": d,
                        "resources": beside(design_resources(platform.arch, design).as_dict(),
                                            _table_ii(host.cfg.env), "Table II"),
                        "hostlink": [a.link.as_dict() for a in platform.agents],
                        "host_timeline": host.timeline.as_dict(), "batch": B,
                        "environment": host.cfg.env}, TIMING)


def efficiency(res, rounds: int, n_learners: int, batch: int, ips: float | None) -> dict:
    """The card's predicted power and energy efficiency (the cost model's energy of every
    action and cycle, ``energy_model`` of the run): energy per update round, agent-samples
    trained per joule, and the system's iterations per second (eq. 7) per watt of the card
    (the host CPU's power not included). The MADDPG paper reports no power or energy."""
    e = res.energy_pj * 1e-12
    return {"power_w": res.power_w,
            "energy_per_round_j": e / rounds if rounds and e else None,
            "agent_samples_per_j": n_learners * batch * rounds / e if rounds and e else None,
            "ips_per_w": ips / res.power_w if ips and res.power_w else None,
            "paper": None, "paper_note": "the MADDPG paper reports no power or energy",
            "model": "energy_model (every price derived from cited primitives; fitted: [])"}


def residual(r: dict) -> str:
    """Why the predicted resources differ from Table II (README, section 1.7), with the
    figures of this run's design: what binds the search, the element's LUTs, and how much of
    its SLRs' LUTs Table II's design holds (Fig. 5's SLRs)."""
    from rlaccel.machines.maddpg.tlm.dse import FIG5, TABLE_II
    slr = [s for s in r["dse"]["slr"] if "lut_used" in s]
    unit = r.get("resources", {}).get("units", {}).get("cu_element")
    if not slr or not unit or not unit["count"]:
        return "the design search had no cost model to bind it"
    guide = 100 * slr[0]["lut_budget"] / slr[0]["lut_capacity"]
    used = max(s["lut_used"] / s["lut_budget"] for s in slr)
    binds = "LUTs" if used >= max(s["dsp_model"] / s["dsp_model_budget"] for s in slr) \
        else "DSPs"
    text = (f"the search is bound by the SLRs' {binds} (our element {unit['lut'] / unit['count']:,.0f}"
            f" LUTs, {unit['dsp'] / unit['count']:g} DSPs)")
    t, f = TABLE_II.get(r["environment"]), FIG5.get(r["environment"])
    if t and f:
        share = 100 * t["lut"] / (f["occupied"] * slr[0]["lut_capacity"])
        text += (f"; Table II's design holds {share:.0f} % of the LUTs of the {f['occupied']} "
                 f"SLRs Fig. 5 gives it (UG949's guideline: {guide:.0f} % of each; "
                 f"dse.budget = \"capacity\" lets the search fill each SLR)")
    crowded = [s["name"] for s in slr if len(s.get("agents", ())) > 1]
    if crowded:
        text += (f"; {', '.join(crowded)} holds two or more learners and binds while the other "
                 f"SLRs stay below their budgets")
    return (text + "; flip-flops: our compute unit is not pipelined as HLS's loops are; BRAM: "
            "weight banks, Adam's moments, stage buffers and FIFOs only (no batch, AXI or "
            "shell buffers)")


def _table_ii(env: str) -> dict | None:
    from rlaccel.machines.maddpg.tlm.dse import TABLE_II
    t = TABLE_II.get(env)
    return {k: t[k] for k in ("lut", "ff", "dsp", "bram")} if t else None


def design_resources(arch, design):
    """The resources of the design a run used: the architecture's units, with as many CU
    elements as the design search's unroll factors add up to and the block RAMs the
    learners' memories take with them (:func:`~.tlm.onchip.learner_brams`)."""
    elements = sum(sum(f[p]) for f in design.factors.values() for p in ("value", "policy"))
    brams = sum(learner_brams(lr, design.factors[lr.name])["total"] for lr in design.learners)
    return resources_of(arch, extra={"elements": elements, "brams": brams})


def _label_trace(platform, design, name: str) -> None:
    """Name every compute unit's track of the trace after its stage (``cu12 value: FP q
    L1``): the units are numbered alike in every learner (learner.s)."""
    trace = getattr(platform, "trace", None)
    if trace is None:
        return
    for u, stage in enumerate(_stage_names(design, name)):
        trace.label(unit_name(u), f"{unit_name(u)} {stage}")


def _probe(run, platform) -> tuple:
    """A run without an update round (its steps ended before learning started): one round
    simulated on a fresh machine from the buffer the run left (the run's own state is not
    touched). Returns the round's cycles, its training cycles and the replay sampling time
    (wall, CPU)."""
    from rlaccel.tlm.platform import Platform
    host = run.state.probe()
    bins = [a.binary for a in platform.agents]
    for h, b in zip(host.hosts, bins):
        h.bind(b)
    p = Platform(platform.arch, bins, host.hosts)
    p.run()
    c = p.agents[0].controller
    return (_mark(c, 1)[0], _mark(c, 2)[0], host.training.t_sample, host.cpu_sample)


def _round_link(ctrl) -> int:
    """Host-link cycles of one round: the batch request (a word out, the batch in) and the
    policy back (the policy out, a word in)."""
    link, b = ctrl.link, ctrl.agent.binary
    nin = b.symbol("LRT").address + 1 - b.symbol("IN").address
    return (link.to_host.delay(1) + link.to_device.delay(nin)
            + link.to_host.delay(b.symbol("POL").length) + link.to_device.delay(1))


#: compute units of a learner with two hidden layers (learner.s): the value pipeline's 15
#: and the policy pipeline's 14 stages (machines/maddpg/tlm/pipeline.py order), the heads
HEADS = ("head pi' (value)", "head pi (policy)", "head backward (policy)")


def _stage_names(design, name: str) -> list[str]:
    """Compute unit u's stage, for learner ``name`` (value, policy, then the heads)."""
    lr = next(x for x in design.learners if x.name == name)
    return ([f"value: {st.name}" for st in lr.value] + [f"policy: {st.name}" for st in lr.policy]
            + list(HEADS))


def summary(r: dict) -> str:
    learn, ips = r["learning"], r["ips"] | r["timing"]["ips"]
    lines = [f"{r['program']} on {r['arch']}: {r['environment']}, seed {r['seed']}, batch "
             f"{r['batch']}, {len(r['learners'])} learners",
             f"  learning: {learn['episodes']} episodes, {learn['steps']} steps, "
             f"{learn['rounds']} rounds; mean reward of the last "
             f"{min(learn['window'], learn['episodes'])} episodes "
             + (f"{learn['final']:.2f}" if learn["final"] is not None else "-")
             + (f", touches {learn['final_touches']:.2f}" if "final_touches" in learn else "")]
    if ips["learner_s"] is not None:
        lines.append(f"  per round{' (one probe round: the run had none)' if ips['probe'] else ''}"
                     f": learners {ips['learner_s'] * 1e3:.3f} ms simulated "
                     f"(training {ips['compute_s'] * 1e3:.3f} ms, host link "
                     f"{ips['transfer_s'] * 1e3:.3f} ms), replay sampling "
                     f"{ips['t_sample_s'] * 1e3:.3f} ms; T_SG {ips['t_sg_s'] * 1e6:.0f} us "
                     f"per step -> IPS {ips['system']:.1f} (eq. 7)")
    for name, p in r["pipelines"].items():
        if p:
            lines.append("  " + describe_pipeline(name, p))
    ring = r["ring"]
    lines.append(f"  ring: {ring['per_sample_allgather_cycles']} cycles per sample's all-gather"
                 f" vs {ring['slowest_stage_cycles']}-cycle slowest stage ("
                 f"{'hidden' if ring['hidden_by_formula'] else 'NOT hidden'}); exposed "
                 + ", ".join(f"{x:.0f}" for x in ring["exposed_cycles_per_round"])
                 + " cycles per round")
    d = r["dse"]
    lines.append(f"  design: f = {d['f']}, {d['stage_cycles']} cycles per sample, DSP "
                 f"{d['dsp_used']} of {d['dsp_total']} ({d['dsp_percent']:.1f} %), BRAM "
                 f"{d['bram_used']:g} ({d['bram_percent']:.1f} %); "
                 + "; ".join(f"{s['name']}: {', '.join(s['agents']) or '-'}"
                             for s in d["slr"])
                 + (f"; over UG949's guideline: {'; '.join(d['over_guideline'])}"
                    if d.get("over_guideline") else ""))
    res = r.get("resources")
    if res:
        paper, err = res.get("paper", {}), res.get("error", {})
        lines.append(f"  resources on the {res['device']}: " + ", ".join(
            f"{k.upper()} {res[k]:,.0f}" + (f" (Table II {paper[k]:,}, {100 * err[k]:+.0f} %)"
                                           if k in paper else "")
            for k in ("lut", "ff", "dsp", "bram")) + f"; {residual(r)}")
    eff = r.get("efficiency")
    if eff:
        eff = eff | r["timing"].get("efficiency", {})
        lines.append(f"  power and efficiency (the paper reports none): {eff['power_w']:.2f} W"
                     + (f", {eff['energy_per_round_j'] * 1e3:.3f} mJ per update round, "
                        f"{eff['agent_samples_per_j'] / 1e3:,.1f} k agent-samples per J"
                        if eff["energy_per_round_j"] else "")
                     + (f", {eff['ips_per_w']:.2f} IPS per W (eq. 7 over the card's power)"
                        if eff["ips_per_w"] else ""))
    return "\n".join(lines)

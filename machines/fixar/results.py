"""What a FIXAR run reports (the FIXAR paper, section VI-C): inferences per second of the accelerator
and of the whole system, utilisation, the time-step breakdown of Fig. 9, energy and IPS/W,
QAT, and the learning curve.

**What IPS counts.** The paper: "the number of inferences processed per second", accelerator
time only for Fig. 10(a), "linear to the size of input batch", i.e. batch samples trained
per second. Ours: ``B`` samples per training time step over the simulated cycles of the
program's training body (``train`` .. ``tend`` in ddpg.s: the critic and actor updates, the
targets' soft updates as far as they hold the controller, and the action for the current
state), at the architecture's clock. Evaluation exchanges and host transfers are not in it.

**The two phases.** ``ips.accelerator`` is the run's mean (all its training steps' cycles);
``ips.accelerator_32bit`` and ``ips.accelerator_16bit`` are those of the steps before and
after Algorithm 1's quantisation (a fixed32 run has only the first, a 16-bit-from-the-start
run only the second). A step's cycles differ between the phases by the AAP cores' cycles
alone (their instructions hold the controller; everything else is the same), which the
family counts per instruction and mode (:meth:`~.tlm.state.FixarState.count`): with ``D``
the difference per step, ``n32`` and ``n16`` the phases' steps and ``C`` the run's cycles,
``c32 = (C + n16 D) / n`` and ``c16 = c32 - D`` (tested against runs of one phase).

**System IPS** adds, per training step, the host's time measured on this machine as this
process's CPU seconds (environment step, replay sampling, packing the request; on a shared
machine the wall clock also counts waiting for a core) and the PCIe link's
(:mod:`rlaccel.machines.fixar.tlm.pcie`: the run-time's per-call overhead plus DMA), all
serial as Fig. 9 stacks them; the same with the paper's 2 ms host is reported beside it.
"""

from __future__ import annotations

from rlaccel.tlm.cost import resources_of
from rlaccel.tlm.cost.resources import beside
from rlaccel.tlm.results import move_timing

from rlaccel.machines.fixar.tlm import pcie

__all__ = ["results", "summary", "train_region", "PAPER", "PAPER_RESOURCES", "RESIDUALS",
           "TIMING"]

#: the figures measured on this computer, or derived from them: the report's ``timing``
TIMING = ("ips.system", "ips.system_paper_host", "breakdown_s.environment",
          "breakdown_s.host_other", "host_wall_s", "host_cpu_s")

#: the paper's headline figures (abstract, VI-C, Table II)
PAPER = {"accelerator_ips": 53826.8, "system_ips": 25293.3, "utilization": 0.924,
        "power_w": 20.4, "ips_per_w": 2638.0, "peak_ips_table2": 38779.8}
#: the FIXAR paper's Table I, the whole design on the U50 (PCIe DMA, kernel and HBM interfaces in)
PAPER_RESOURCES = {"lut": 508100, "ff": 408800, "dsp": 2302, "bram": 774, "uram": 128}
#: why the model's figures differ from the paper's (README, "Energy, power and resources")
RESIDUALS = {
    "power": "the card's idle power (17.38 W, an xbutil reading of an idle U50) is most of "
             "it; the PEs' MACs and the flip-flops' clock add the rest; the paper's PCIe DMA, "
             "kernel and HBM interfaces' activity and its pipelined array's extra flip-flops "
             "are not modelled",
    "resources": "Yosys's 7-series counts of our combinational blocks (no pipelining "
                 "registers: fewer FFs), a 16-lane float32 Adam of rtl/fpu's units (more "
                 "LUTs), the shell (PCIe DMA, kernel and HBM interfaces) not counted; our "
                 "buffer space holds a whole batch's activations in UltraRAM where the paper "
                 "streams one vector"}


def train_region(binary) -> tuple[int, int]:
    """PCs ``[first, last]`` of the training body (labels ``train`` and ``tend``)."""
    return binary.symbol("train").address, binary.symbol("tend").address


def _region(platform, binary) -> dict:
    """Cycles, energy and action counts of the training body, per training step."""
    agent = platform.agents[0]
    c = agent.controller
    first, last = train_region(binary)
    steps = int(c.exec_count[first])
    cycles = int(sum(c.cycles_at[first:last + 1]))
    acts: dict = {}
    energy = 0.0
    for op in agent.ops[first:last + 1]:
        n = int(c.exec_count[op.pc])
        counts = {a: n * k for a, k in op.counts.items()}
        for a, k in c.dynamic_actions.get(op.pc, {}).items():
            counts[a] = counts.get(a, 0) + k
        for a, k in counts.items():
            acts[a] = acts.get(a, 0) + k
        energy += agent.energy.price(counts) + agent.energy.clock * int(c.cycles_at[op.pc])
    return {"steps": steps, "cycles": cycles, "actions": acts, "energy_pj": energy}


def phases(tally: dict, first: int, last: int, cycles: int, steps: int) -> dict:
    """Training steps and cycles per step of the 32-bit and 16-bit phases (module
    docstring) from the family's ``tally`` of the training body ``[first, last]``."""
    pcs = sorted({pc for pc, _ in tally if first <= pc <= last})
    if not pcs or not steps:
        return {}
    n = {h: tally.get((pcs[0], h), [0, 0])[0] for h in (False, True)}
    aap = {h: sum(tally.get((pc, h), [0, 0])[1] for pc in pcs) for h in (False, True)}
    if n[False] and n[True]:
        d = aap[False] / n[False] - aap[True] / n[True]
        c32 = (cycles + n[True] * d) / steps
        per = {False: c32, True: c32 - d}
    else:
        per = {h: cycles / steps for h in (False, True)}
    return {name: {"train_steps": n[h], "cycles_per_step": per[h] if n[h] else None}
            for name, h in (("32bit", False), ("16bit", True))}


def results(m: dict, run, res, platform) -> dict:
    drv = run.state
    cfg = drv.cfg
    arch = platform.arch
    clock = arch.knobs.clock_mhz * 1e6
    B = cfg.batch
    reg = _region(platform, run.binary)
    n = reg["steps"]
    out: dict = {"learning": {**drv.host.learning(), "eval_every": cfg.eval_every},
                 "config": {k: (list(v) if isinstance(v, tuple) else v)
                            for k, v in cfg.__dict__.items()},
                 "train_steps": n, "quantized_at": drv.quantized_at,
                 "resumed_at": drv.resumed_at,
                 "qat": platform.agents[0].state.get("fixar").qat_report()
                 if platform.agents[0].state.get("fixar") else {}}
    cpu = drv.cpu
    t_env = cpu["environment"] / max(drv.host.t - (drv.resumed_at or 0), 1)
    t_host = t_env + (cpu["sampling"] + cpu["packing"]) / max(n, 1)
    oh = m["host"]["pcie_overhead_s"]
    link = pcie.cited_link(None if oh < 0 else oh)
    t_link = pcie.step_transfer_seconds(drv.S, drv.A, B, link)
    if n:
        cyc = reg["cycles"] / n
        t_acc = cyc / clock
        acts = reg["actions"]
        pe_cycles = acts.get("pe_mac32", 0) + acts.get("pe_mac16", 0) / 2
        cores = arch.knobs.cores * arch.knobs.lanes
        busy = {u: v["busy_cycles"] for u, v in res.units.items() if u.startswith("aap")}
        acc_cycles = res.cycles - res.host_cycles
        power = reg["energy_pj"] * 1e-12 / (reg["cycles"] / clock)
        ips = B / t_acc
        st = platform.agents[0].state.get("fixar")
        split = phases(st.tally if st else {}, *train_region(run.binary), reg["cycles"], n)
        by = {k: (B * clock / v["cycles_per_step"] if v["cycles_per_step"] else None)
              for k, v in split.items()}
        out.update({
            "cycles_per_step": cyc,
            "phases": split,
            "ips": {"accelerator": ips,
                    "accelerator_32bit": by.get("32bit"),
                    "accelerator_16bit": by.get("16bit"),
                    "counts": "batch samples trained per simulated second of the training "
                              "body's cycles (accelerator only), the paper's Fig. 10 measure",
                    "system": B / (t_host + t_link + t_acc),
                    "system_paper_host": B / (pcie.PAPER_ENV_SECONDS + t_link + t_acc),
                    "paper_accelerator": PAPER["accelerator_ips"],
                    "paper_system": PAPER["system_ips"]},
            "utilization": {**res.utilization,
                            "pe": pe_cycles / (cores * reg["cycles"]),
                            "cores": {u: b / acc_cycles for u, b in sorted(busy.items())},
                            "paper": PAPER["utilization"]},
            "breakdown_s": {"environment": t_env, "host_other": t_host - t_env,
                            "transfer": t_link, "accelerator": t_acc,
                            "pcie_call_overhead": link.call_overhead_s,
                            "pcie_sources": list(link.sources),
                            "paper_implied_call_overhead": pcie.overhead_from_paper()},
            "power": {"train_w": power, "ips_per_w": ips / power,
                      "energy_per_sample_uj": reg["energy_pj"] * 1e-6 / (n * B),
                      "paper_w": PAPER["power_w"], "paper_ips_per_w": PAPER["ips_per_w"],
                      "error_w": power / PAPER["power_w"] - 1,
                      "error_ips_per_w": ips / power / PAPER["ips_per_w"] - 1},
            "train_energy_pj": reg["energy_pj"],
        })
    else:
        out["ips"] = {"accelerator": 0.0, "system": 0.0}
    out["resources"] = beside(resources_of(arch).as_dict(), PAPER_RESOURCES, "Table I")
    out["host_wall_s"] = dict(drv.wall)
    out["host_cpu_s"] = dict(drv.cpu)
    out["exchanges"] = {"train": drv.train_exchanges, "evaluation": drv.eval_exchanges}
    return move_timing(out, TIMING)


def _ips_line(r: dict) -> str:
    """The accelerator's IPS per phase and the run's mean, beside the paper's."""
    ips, ph = r["ips"], r.get("phases", {})
    parts = []
    for key, name in (("32bit", "32-bit activations"), ("16bit", "16-bit activations")):
        v = ips.get(f"accelerator_{key}")
        if v:
            parts.append(f"{name} {v:,.1f} IPS ({ph[key]['train_steps']:,} steps, "
                         f"{ph[key]['cycles_per_step']:,.0f} cycles/step)")
    return (f"  accelerator IPS: {'; '.join(parts)}; run mean {ips['accelerator']:,.1f} "
            f"(paper {ips['paper_accelerator']:,.1f}, 'for all different batch sizes'); "
            f"IPS = batch samples per second of the training step's simulated cycles")


def summary(r: dict) -> str:
    lines = [f"FIXAR {r['config']['env_id']} B={r['config']['batch']}: {r['train_steps']} "
             f"training steps of {r['config']['steps']}; formats: weights "
             f"{r['config']['weight_format']}, gradients {r['config']['grad_format']}, "
             f"activations {r['config']['act_format']}"
             + (" then Algorithm 1's 16-bit codes" if r['config']['qat_delay'] is not None
                else "") + ", accumulator fixed32"]
    if r.get("cycles_per_step"):
        ips, u, p = r["ips"] | r["timing"]["ips"], r["utilization"], r["power"]
        lines.append(_ips_line(r))
        lines.append(f"  PE utilization {u['pe'] * 100:.1f} % of the run's training cycles "
                     f"(paper 92.4 %)")
        lines.append(f"  system: {ips['system']:,.1f} IPS on this host, "
                     f"{ips['system_paper_host']:,.1f} IPS with the paper's 2 ms host "
                     f"(paper {ips['paper_system']:,.1f})")
        lines.append(f"  power {p['train_w']:.2f} W, {p['ips_per_w']:,.1f} IPS/W (paper 20.4 W, "
                     f"2638.0 IPS/W: {100 * p['error_w']:+.0f} %, "
                     f"{100 * p['error_ips_per_w']:+.0f} %); {RESIDUALS['power']}")
    if r.get("resources"):
        lines.append(_resource_line(r["resources"], RESIDUALS["resources"]))
    if r.get("quantized_at") is not None:
        lines.append(f"  QAT: 16-bit activations from step {r['quantized_at']}")
    ret = r["learning"]["returns"]
    if ret:
        lines.append(f"  evaluation returns: {', '.join(f'{x:.1f}' for x in ret)}")
    return "\n".join(lines)


def _resource_line(res: dict, cause: str) -> str:
    """Resources beside the paper's, with the errors and their cause."""
    paper, err = res.get("paper", {}), res.get("error", {})
    parts = [f"{k.upper()} {res[k]:,.0f}" + (f" (paper {paper[k]:,}, {100 * err[k]:+.0f} %)"
                                            if k in paper else "")
             for k in ("lut", "ff", "dsp", "bram", "uram") if res.get(k) or k in paper]
    over = f"; over UG949's budget: {', '.join(res['over_budget'])}" if res["over_budget"] \
        else ""
    return f"  resources on the {res['device']}: {', '.join(parts)}{over}; {cause}"

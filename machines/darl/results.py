"""The DARL run's own report fields (latency, all-reduce, IPS, power, learning) and summary."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rlaccel.tlm.cost import resources_of
from rlaccel.tlm.cost.resources import beside
from rlaccel.tlm.results import move_timing

__all__ = ["results", "summary", "TIMING", "PAPER_RESOURCES", "RESIDUALS"]

#: the DARL paper's Table 1: (task, agents) -> the design's resources on the U280
PAPER_RESOURCES = {
    ("CartPole", 1): {"lut": 73100, "ff": 38047, "dsp": 17, "bram": 276, "uram": 79},
    ("CartPole", 8): {"lut": 866700, "ff": 329100, "dsp": 17, "bram": 1425, "uram": 431},
    ("LunarLander", 1): {"lut": 117416, "ff": 42508, "dsp": 17, "bram": 546, "uram": 143},
    ("LunarLander", 8): {"lut": 988200, "ff": 367700, "dsp": 17, "bram": 2825, "uram": 431}}
#: why the model's figures differ from the paper's (README, "Energy, power and resources")
RESIDUALS = {
    "power": "the FPGA's idle core power (4.78 W, an xbutil reading of a U200's VCCINT: no "
             "U280 reading found) and the kernel's work; XPE also charges every agent's HBM "
             "channel and its controller (the paper: 'due to using HBM'), which the model "
             "prices per bit moved only",
    "resources": "every unit is this project's RTL synthesised by Yosys (the encoder, the "
                 "regression arrays' 4 A C processing elements and the update lanes with their "
                 "32 x 32 multiplies in LUTs, the butterfly with its buffers as flip-flops, "
                 "extrapolated to 256-word links), mapped by Yosys, not Vivado; the chunk C = 16 "
                 "is the model's choice (the paper leaves it open), and the control, the AXI "
                 "and HBM interfaces are not counted",
    "power_agents": "with several agents, the butterfly's flip-flops (its buffers at the "
                    "assumed 8,192-bit links) clocked every cycle"}

#: the figures measured on this computer, or derived from them (eq. 23's IPS with this
#: host's T_env, its IPS/W): the report's ``timing``
TIMING = ("ips.system", "ips.terms", "ips.t_env_measured_s", "power.ips_per_watt",
          "learning.wall_s", "learning.wall_to_target_s")

_TASK = {"CartPole-v1": "CartPole", "LunarLander-v3": "LunarLander"}


def _per(marks: dict, key: str, platform):
    """Cycles per execution of mark ``key`` (agent 0) without the ``cc.mark`` instruction's
    own issue cycles: they are the simulator's bookkeeping, not a stage of the kernel."""
    m = marks.get(key)
    if not m or not m["count"]:
        return None
    own = next((op.issue for op in platform.agents[0].ops
                if op.mnemonic == "cc.mark" and op.operands.get("id") == int(key)), 0)
    return m["cycles"] / m["count"] - own


def results(m: dict, run, res, platform) -> dict:
    from rlaccel.machines.darl.tlm import TABLE1, compare, ips_terms, iteration_seconds
    from rlaccel.machines.darl.tlm.timing import Workload, latency_cycles
    from rlaccel.machines.darl.tlm.models import constants, optimisations

    from rlaccel.machines.darl.plugin import T_ENV_QUIET
    host = run.state
    cfg, c = host.cfg, host.curve
    n = cfg.agents
    clock = platform.arch.knobs.clock_mhz
    iteration = _per(res.marks, "2", platform)
    infer = _per(res.marks, "1", platform)
    stage_end = _per(res.marks, "3", platform)
    # several agents averaging every round: every iteration ends with the all-reduce (marks
    # 4: a batch's first, which also waits for the agents not yet there; 5: the others)
    ar_first, ar_next = _per(res.marks, "4", platform), _per(res.marks, "5", platform)
    ar = ar_next if ar_next is not None else ar_first
    train = iteration + ar if iteration is not None and ar is not None else iteration
    net = platform.interconnect
    each = cfg.allreduce_each_iteration
    w = Workload(d=cfg.d, chunk=platform.arch.knobs.lanes, n=host.n_obs, a=host.n_actions,
                 agents=n if each else 1)
    opt = optimisations(platform.arch)
    k = constants(platform.timing)
    if net is not None:
        k = replace(k, hop=net.timing.latency, link_words=net.timing.width)
    formula = {"train": latency_cycles(w, k, opt), "inference": latency_cycles(w, k, opt,
                                                                             train=False)}
    words = 2 * host.n_actions * cfg.d
    allreduce = {"words": words,
                 "formula_cycles": net.allreduce_cycles(words) if net is not None else 0,
                 "each_iteration": each,
                 "iteration_cycles": ar_next, "iteration_first_cycles": ar_first,
                 "stage_end_cycles": stage_end}
    paper_L = TABLE1.get((_TASK.get(cfg.env, cfg.env), n))

    a0 = res.agents[0] if res.agents else {}
    kernel = a0.get("cycles", res.cycles) - a0.get("host_cycles", 0) - a0.get("sync_cycles", 0)
    prefix = "agent0." if n > 1 else ""
    units = {k[len(prefix):]: v["busy_cycles"] / kernel if kernel > 0 else 0.0
             for k, v in res.units.items() if k.startswith(prefix)}

    out = {"latency_cycles": train, "latency_iteration_cycles": iteration,
           "latency_inference_cycles": infer,
           "unit_utilisation_kernel": units,
           "latency_formula": formula, "latency_paper_table1": paper_L,
           "optimisations": {"codebook": opt.codebook, "chunking": opt.chunking,
                             "delayed_update": opt.delayed_update},
           "allreduce": allreduce,
           "resources": beside(resources_of(platform.arch, extra={"actions": host.n_actions}).as_dict(),
                               PAPER_RESOURCES.get((_TASK.get(cfg.env, cfg.env), n)),
                               "Table 1")}

    stages = len(c.agent_returns)
    if stages and train:
        T = [float(np.mean(s)) for s in c.agent_steps]
        Ti = [g / n for g in c.greedy]
        Tt = [b / n for b in c.batches]
        t_env = host.t_env / max(host.steps, 1)
        # the agents' exchanges run on their own time lines in the simulation (each agent's
        # XRT queue into its own HBM channel), so they overlap: T_comm is the busiest
        # agent's transfer time, not the sum over agents (which is more time than the whole
        # simulated run takes); the sum is kept as the serial host's figure
        per_agent = [a["host_cycles"] for a in res.agents] if res.agents else [0]
        t_comm = max(per_agent) / (clock * 1e6)
        t_comm_serial = sum(per_agent) / (clock * 1e6)
        F_inf = iteration_seconds(infer or train, clock)
        F = iteration_seconds(train, clock)
        kw = dict(batch=cfg.batch, F=F_inf, f_train=F, T_comm1=t_comm)
        measured = ips_terms(n, T, Ti, Tt, T_env=n * t_env, **kw)
        quiet_env = T_ENV_QUIET.get(cfg.env)
        ips = {"system": measured["ips"], "terms": measured,
               "t_env_measured_s": t_env, "t_comm_s": t_comm,
               "t_comm_serial_s": t_comm_serial,
               "note": "eq. 23-25: kernel iterations simulated (marks 1, 2), transfers from "
                       "the host link model (the agents' exchanges overlapping: the busiest "
                       "agent's), T_env this process's CPU time per step, the host stepping "
                       "the agents' environments one after another"}
        if quiet_env is not None:
            q = ips_terms(n, T, Ti, Tt, T_env=n * quiet_env, **kw)
            ips["quiet_host"] = q["ips"]
            ips["quiet_host_parallel_envs"] = ips_terms(n, T, Ti, Tt, T_env=quiet_env,
                                                        **kw)["ips"]
            ips["quiet_host_parallel_envs_serial_link"] = ips_terms(
                n, T, Ti, Tt, T_env=quiet_env, **(kw | {"T_comm1": t_comm_serial}))["ips"]
            ips["t_env_quiet_s"] = quiet_env
        watts = res.power_w
        out["ips"] = ips
        out["power"] = {**compare(watts, n),
                        "model": "the cost model (tlm/cost): the run's simulated energy over "
                                 "its simulated time; the paper's Table 2 beside it (XPE)",
                        "ips_per_watt": ips["system"] / watts,
                        "ips_per_watt_quiet_host": ips.get("quiet_host", 0.0) / watts,
                        "ips_per_watt_quiet_host_parallel_envs":
                            ips.get("quiet_host_parallel_envs", 0.0) / watts}
    first = c.first_stage(cfg.target)
    out["learning"] = {
        "task": m["task"], "env": cfg.env, "agents": n, "target": cfg.target,
        "returns": c.returns, "agent_returns": c.agent_returns, "stages": stages,
        "env_steps": host.steps, "greedy": c.greedy, "batches": c.batches,
        "first_stage_at_target": first,
        "first_stage_any_agent_at_target": c.first_stage(cfg.target, "any"),
        "episodes_to_target": None if first is None else first * n,
        "wall_s": c.wall[-1] if c.wall else 0.0,
        "wall_to_target_s": None if first is None else c.wall[first - 1],
        "saturations": host.counter.saturations,
    }
    return move_timing(out, TIMING)


def summary(r: dict) -> str:
    lr = r["learning"]
    lines = [f"DARL {lr['env']}, {lr['agents']} agent(s): {lr['stages']} stage(s)"]
    if lr["returns"]:
        at = lr["first_stage_at_target"]
        lines.append(f"  returns: last {lr['returns'][-1]:.1f}, best {max(lr['returns']):.1f};"
                     f" target {lr['target']:.0f} "
                     + (f"reached at stage {at}" if at is not None else "not reached"))
    if r["latency_cycles"] is not None:
        paper_L = r["latency_paper_table1"]
        lines.append(f"  latency: training iteration {r['latency_cycles']:.0f} cycles "
                     f"(formula {r['latency_formula']['train']}"
                     + (f", paper's Table 1: {paper_L}" if paper_L else "") + ")"
                     + (f", inference {r['latency_inference_cycles']:.0f}"
                        if r["latency_inference_cycles"] else ""))
    ar = r["allreduce"]
    if ar.get("iteration_cycles") is not None:
        lines.append(f"  all-reduce in every iteration: {ar['iteration_cycles']:.0f} cycles "
                     f"(a batch's first, waiting for the others: "
                     f"{ar['iteration_first_cycles']:.0f}); training iteration without it "
                     f"{r['latency_iteration_cycles']:.0f}")
    if r["allreduce"]["stage_end_cycles"] is not None:
        lines.append(f"  stage end on agent 0 (waiting for the others, all-reduce, sync): "
                     f"{r['allreduce']['stage_end_cycles']:.0f}"
                     f" cycles; butterfly formula {r['allreduce']['formula_cycles']}")
    if "ips" in r:
        t = r["timing"]
        lines.append(f"  IPS (eq. 23) with this host's T_env: {t['ips']['system']:,.0f}"
                     + (f"; a quiet host's stepping the environments one after another: "
                        f"{r['ips']['quiet_host']:,.0f}"
                        if "quiet_host" in r["ips"] and r["learning"]["agents"] > 1 else "")
                     + f"; {r['power']['watts']:.2f} W -> "
                       f"{t['power']['ips_per_watt']:,.0f} IPS/W")
        if r["power"].get("paper_watts"):
            lines.append(f"  power {r['power']['watts']:.2f} W against Table 2's "
                         f"{r['power']['paper_watts']:.2f} W (XPE, "
                         f"{100 * r['power']['error']:+.0f} %): "
                         + (RESIDUALS["power_agents"] + "; " if lr["agents"] > 1 else "")
                         + RESIDUALS["power"])
    res = r.get("resources")
    if res:
        paper, err = res.get("paper", {}), res.get("error", {})
        parts = ", ".join(f"{k.upper()} {res[k]:,.0f}" + (f" (Table 1 {paper[k]:,}, "
                                                         f"{100 * err[k]:+.0f} %)"
                                                         if k in paper else "")
                          for k in ("lut", "ff", "dsp", "bram", "uram"))
        lines.append(f"  resources on the {res['device']}: {parts}; {RESIDUALS['resources']}")
    return "\n".join(lines)

"""What a LearningGroup run reports beyond the platform's figures, as the LearningGroup paper counts them.

* ``learning`` -- the success rate over the run (the paper's accuracy, IC3Net's success) and
  the learning curve, one row per weight update;
* ``utilization`` -- the platform's figures plus the VPUs': ``vpu_matrix`` (multiply-
  accumulates over the cores' cycles in matrix instructions x 3 x 264: the paper's "compute
  utilization ... for the dense and sparse MAC operations", section III-D),
  ``vpu_inference`` (forward products only), ``vpu`` (every VPU operation over the
  accelerator's cycles);
* ``throughput`` -- GFLOPS (two per multiply-accumulate) at the clock over the accelerator's
  time (every cycle but the host link's: the paper excludes the host, section IV-E), actual
  and dense-equivalent (what a dense machine would have done in the same time: the paper's
  3629.5 GFLOPS at G = 16 exceed the 277.2 peak, so Fig. 11 counts dense-equivalent work);
  GFLOPS/W;
* ``stages`` -- cycles of weight grouping, forward, backward and update (the program's
  marks), the encoder's and the load allocation unit's busy cycles;
* ``latency`` -- accelerator time per iteration (weight update) and per environment step;
* ``encoder`` -- OSEL's misses and hits and their cycles; ``table1`` -- per grouped layer, the
  largest deviation of a core's workload from total/3 over the run, row-based (the machine)
  and threshold-based (Table I's baseline).
"""

from __future__ import annotations

from rlaccel.tlm.cost import resources_of
from rlaccel.tlm.results import move_timing

__all__ = ["family_results", "summary", "LAYERS", "STAGES", "TIMING", "PAPER", "RESIDUALS"]

#: the LearningGroup paper's figures the run's are set beside (IV-E, abstract)
PAPER = {"power_w": 36.3, "gflops_dense": 257.4, "gflops_per_w_dense": 7.10}
#: why the model's figures differ from the paper's (README, "Energy, power and resources")
RESIDUALS = {
    "power": "the card's idle power (17.42 W, an xbutil reading of an idle U200, the same "
             "card class: no U280 reading found) and the VPUs' FP16 multiply-adds priced as "
             "standard cells times the fabric gap; the paper's Fig. 8 puts 63.5 % of its power "
             "in the VPUs, which fill 76.5 % of its flip-flops (ours are combinational: 66 "
             "each) and whose routing the gap does not price per LUT",
    "resources": "our VPU is a combinational IEEE FP16 multiply-add of 1,706 LUTs (the "
                 "paper's pipelined, DSP-based units fit 792 in 67.5 % of the LUTs); the "
                 "aggregator, load allocation and scheduler have no block"}

#: the figures measured on this computer: the report's ``timing``
TIMING = ("latency.host_s_per_iteration",)

#: the program's weight symbols and the layers they hold
LAYERS = {"W_ENC": "encoder", "W_COMM": "comm", "W_IH": "lstm_ih", "W_HH": "lstm_hh",
          "W_HEAD": "heads"}
#: the program's cc.mark ids
STAGES = {"1": "grouping", "2": "forward", "3": "backward", "4": "update"}


def _div(a, b):
    return a / b if b else 0.0


def family_results(m: dict, host, res, platform) -> dict:
    from rlaccel.machines.learninggroup.tlm.state import state_of
    agent = platform.agent
    st = state_of(agent)
    k = platform.arch.knobs
    vpus = k.cores * k.lanes
    clock = k.clock_mhz * 1e6
    accel = res.cycles - res.host_cycles
    mx = st.counters.matrix
    macs = sum(r["macs"] for r in mx.values())
    dense = sum(r["dense_macs"] for r in mx.values())
    core_cyc = sum(r["core_cycles"] for r in mx.values())
    fwd = mx.get("sff", {"macs": 0, "core_cycles": 0, "dense_macs": 0, "cycles": 0})
    t_s = accel / clock if clock else 0.0
    energy_j = res.energy_pj * 1e-12
    util = dict(res.utilization)
    util.update({
        "vpu_matrix": _div(macs, core_cyc * vpus),
        "vpu_inference": _div(fwd["macs"], fwd["core_cycles"] * vpus),
        "vpu": _div(res.actions.get("vpu_op", 0), accel * vpus),
    })
    gflops = _div(2 * macs, t_s) / 1e9
    gflops_eff = _div(2 * dense, t_s) / 1e9
    watts = _div(energy_j, res.time_s)
    learn = host.learning()
    iters = max(learn["iterations"], 1)
    syms = {s.address: s.name for s in agent.binary.symbols if s.space == "synapse"}
    marks = {STAGES.get(key, key): v for key, v in res.marks.items()}
    busy = {u: v["busy_cycles"] for u, v in res.units.items()}
    return move_timing({
        "groups": m["network"]["groups"], "agents": m["environment_kwargs"]["nagents"],
        "batch_episodes": m["learning"]["batch_episodes"],
        "learning": learn,
        "utilization": util,
        "throughput": {"gflops": gflops, "gflops_effective": gflops_eff,
                       "gflops_matrix": _div(2 * macs, sum(r["cycles"] for r in mx.values())
                                             / clock) / 1e9,
                       "gflops_effective_matrix": _div(2 * dense, sum(
                           r["cycles"] for r in mx.values()) / clock) / 1e9,
                       "gflops_per_w": _div(gflops_eff, watts), "power_w": watts,
                       "paper_power_w": PAPER["power_w"],
                       "error_power": _div(watts, PAPER["power_w"]) - 1,
                       "peak_gflops": 2 * vpus * clock / 1e9,
                       "macs": macs, "dense_macs": dense},
        "matrix": {mn: dict(r) for mn, r in mx.items()},
        "stages": {"marks": marks, "maxindex_busy": busy.get("maxindex", 0),
                   "encoder_busy": busy.get("encoder", 0), "lau_busy": busy.get("lau", 0),
                   "accelerator_cycles": accel, "host_link_cycles": res.host_cycles},
        "latency": {"iteration_ms": _div(accel, iters) / clock * 1e3,
                    "step_us": _div(accel, learn["steps"]) / clock * 1e6,
                    "host_s_per_iteration": _div(sum(host.timeline.seconds.values()), iters)},
        "encoder": {str(pc): dict(r) for pc, r in st.counters.encoder.items()},
        "compression": {str(pc): dict(r) for pc, r in st.counters.compression.items()},
        "table1": {LAYERS.get(syms.get(a, ""), str(a)): dict(r)
                   for a, r in st.counters.table1.items()},
        "hostlink": agent.link.as_dict(),
        "resources": resources_of(platform.arch).as_dict(),
    }, TIMING)


def summary(r: dict) -> str:
    learn, u, th, lat = r["learning"], r["utilization"], r["throughput"], r["latency"]
    marks = r["stages"]["marks"]
    stage = ", ".join(f"{k} {v['cycles']:,}" for k, v in marks.items())
    lines = [
        f"  run:      A = {r['agents']}, G = {r['groups']}, B = {r['batch_episodes']}, "
        f"{r['program_bytes']} instruction bytes",
        f"  learning: {learn['iterations']} iterations, {learn['episodes']} episodes, "
        f"{learn['steps']} steps; success {learn['success_rate']:.1%} (last tenth "
        f"{learn['success_rate_last_tenth']:.1%}), caught {learn['caught_rate']:.1%}",
        f"  machine:  {r['stages']['host_link_cycles']:,} cycles on the host link; VPU "
        f"utilisation in inference {u['vpu_inference']:.1%}; {th['gflops']:.1f} GFLOPS "
        f"computed, {th['gflops_per_w']:.2f} GFLOPS/W",
        f"            power {th['power_w']:.1f} W (paper {PAPER['power_w']} W on average, "
        f"{100 * th['error_power']:+.0f} %; paper dense {PAPER['gflops_per_w_dense']} GFLOPS/W): "
        f"{RESIDUALS['power']}",
        _resources(r["resources"]),
        f"            latency {lat['iteration_ms']:.3f} ms per iteration, "
        f"{lat['step_us']:.2f} us per environment step (accelerator)",
        f"  stages:   {stage}",
        f"  simulator speed: {r['timing']['sim']['instructions_per_s']:,.0f} instructions/s",
    ]
    return "\n".join(lines)


def _resources(res: dict) -> str:
    parts = ", ".join(f"{k.upper()} {res[k]:,.0f} ({res['percent'][k]:.0f} %)"
                      for k in ("lut", "ff", "dsp", "bram") if k in res["percent"])
    over = f"; over UG949's budget: {', '.join(res['over_budget'])}" if res["over_budget"] \
        else ""
    return (f"            resources on the {res['device']}: {parts}{over} (the paper gives "
            f"shares only, Fig. 8); {RESIDUALS['resources']}")

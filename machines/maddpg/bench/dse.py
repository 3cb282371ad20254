"""The design-space exploration of the MADDPG paper (section IV) for its two tasks, set next to
Table II, with the pipelines' predicted learner time per batch.

    python machines/maddpg/bench/dse.py [--batches 64 128 256 512 1024] [--hop-latency 2]
                               [--link-words 1] [--json out/maddpg_dse.json]

For Cooperative Communication and Predator-Prey (network widths from the MPE tasks and the
reference's 64-64 hidden layers), on the whole U200 and on the U200 with a Vitis shell in
SLR1, with the paper's base-factor search and the exact latency search
(machines/maddpg/tlm/dse.py): the base factor, the cycles per sample of the slowest stage,
DSP and BRAM use per SLR against Table II, the pipelines' throughput at 300 MHz, the cycles
for every learner's two pipelines to stream a batch (fill + (B - 1) x bottleneck; not a
simulation: no transfers, no gradient application, no host), and whether a per-sample ring
all-gather of the agents' actions (hop latency and link width as given: the paper states
neither) hides under the slowest stage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from rlaccel.machines.maddpg.config import MaddpgConfig
from rlaccel.machines.maddpg.task import make_task
from rlaccel.isa.arch import load_arch
from rlaccel.machines.maddpg.tlm.device import device_of
from rlaccel.machines.maddpg.tlm.dse import Learner, explore
from rlaccel.machines.maddpg.tlm.ring import allgather_cycles, hidden

TABLE_II = {"simple_speaker_listener_v4": {"dsp": 3320, "dsp_percent": 49, "bram": 1060,
                                           "bram_percent": 49},
            "simple_tag_v3": {"dsp": 2447, "dsp_percent": 36, "bram": 1519,
                              "bram_percent": 73}}


def learners(env: str) -> list[Learner]:
    task = make_task(env)
    h = MaddpgConfig().hidden
    out = []
    for s in task.specs:
        q_in = (s.obs_dim + s.act_dim if s.policy == "ddpg"
                else sum(task.obs_dims) + sum(task.act_dims))
        out.append(Learner.from_sizes(s.name, (s.obs_dim,) + h + (s.act_dim,),
                                      (q_in,) + h + (1,)))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", nargs="+", type=int, default=[64, 128, 256, 512, 1024])
    p.add_argument("--hop-latency", type=int, default=2)
    p.add_argument("--link-words", type=int, default=1)
    p.add_argument("--json", default="out/maddpg_dse.json")
    args = p.parse_args(argv)
    res = {}
    for env in TABLE_II:
        task = make_task(env)
        lrs = learners(env)
        for dev in (device_of(load_arch("maddpg")), device_of(load_arch("maddpg-shell"))):
            for search in ("base", "latency"):
                r = explore(lrs, dev, search=search)
                d = r.as_dict()
                d["batch_cycles"] = {str(B): r.batch_cycles(B) for B in args.batches}
                d["batch_ms"] = {str(B): r.batch_cycles(B) / (dev.clock_mhz * 1e3)
                                 for B in args.batches}
                ring = allgather_cycles(list(task.act_dims), args.hop_latency, 1,
                                        args.link_words)
                d["ring_per_sample_cycles"] = max(ring)
                d["ring_hidden"] = hidden(list(task.act_dims), r.stage_cycles,
                                          args.hop_latency, 1, args.link_words)
                res[f"{env}/{dev.name}/{search}"] = d
                t2 = TABLE_II[env]
                print(f"{env} on {dev.name} ({search} search): f = {r.f}, "
                      f"{r.stage_cycles} cycles/sample, {r.samples_per_s / 1e6:.2f} M samples/s;"
                      f" DSP {d['dsp_used']} ({d['dsp_percent']:.1f} %; Table II "
                      f"{t2['dsp']}, {t2['dsp_percent']} %), BRAM {d['bram_used']:g} "
                      f"({d['bram_percent']:.1f} %; Table II {t2['bram']}, "
                      f"{t2['bram_percent']} %)")
                for s in d["slr"]:
                    print(f"    {s['name']}: {', '.join(s['agents']) or '-'}: DSP "
                          f"{s['dsp_used']}/{s['dsp_budget']}, BRAM "
                          f"{s['bram_used']:g}/{s['bram_budget']:g}")
                print("    batch -> ms: " + ", ".join(f"{B}: {d['batch_ms'][str(B)]:.3f}"
                                                      for B in args.batches)
                      + f"; ring all-gather {max(ring)} cycles/sample "
                      f"({'hidden' if d['ring_hidden'] else 'NOT hidden'})")
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

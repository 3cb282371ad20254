"""LearningGroup's units on their own: Fig. 10 (OSEL vs the baseline encoder), Table I on
random groupings, and the cores' utilisation, speed-up and GFLOPS for IC3Net's layers, from
the functional and timing models of ``machines/learninggroup/tlm`` (no simulator).

    python machines/learninggroup/bench/units.py [--draws 20] [--table1-draws 2000] [--hid 128]
        [--obs 29] [--seed 1] [--json out/learninggroup_units.json]

Fig. 10: a 128 x 512 mask (the LSTM's H x 4H input matrix at H = 128) from N(0, 1) FP16
grouping matrices, G = 2, 4, 8, 16, 32, averaged over ``--draws`` draws; cycles by category
(MaxIndex, Index Miss, Index Hit, Weight Compression) and memory by part, for OSEL and the
baseline, with the tuples' non-zero indexes stored (Fig. 5) and without (the "compact tuple"
of section IV-C). G = 32 needs a 5-bit max index (``max_groups = 32``).

``--grouping-bits`` sets the width a grouping-matrix entry is counted with (16, FP16, by
default). ``--rows-per-pass`` changes the four rows a core takes at once (to see what the paper's
sparse utilisation would need).

Table I on random groupings: the largest deviation of a core's workload from total/3 over
``--table1-draws`` independent groupings of the 128 x 512 matrix (the trained groupings of
``machines/learninggroup/bench/reference.py`` change slowly, so its figures are the ones to compare).

Cores: every IC3Net layer (encoder obs x H, comm H x H, LSTM H x 4H twice, heads H x 5,
H x 2, H x 1; heads dense) as rows split over 3 cores (row-based), each core taking up to
four rows per pass of 264 VPUs (``timing.core_passes``). Per agent and time step:
inference = every forward product; training = forward, the transposed products that carry
the error back (heads, both LSTM matrices, comm; not the encoder's input), and the kept
weights' gradients (outer products, the forward's rows). Utilisation = MACs done / VPU-cycles;
GFLOPS = 2 MACs per cycle at 175 MHz, "effective" counting the dense layer's MACs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from rlaccel.machines.learninggroup.tlm import grouping, osel, timing
from rlaccel.machines.learninggroup.tlm import load_allocation as la
from rlaccel.machines.learninggroup.tlm.timing import EncoderParams
from rlaccel.util.files import atomic_write

SEED_FIG10 = {"cycles_speedup_max": 5.72, "memory_compression": (1.95, 6.81)}
SEED_TABLE1 = {2: (86.03, 47.44), 4: (105.02, 31.37), 8: (39.19, 35.80), 16: (56.35, 36.13)}


def _draw(rng, M, G, N):
    return (rng.standard_normal((M, G)).astype(np.float16),
            rng.standard_normal((G, N)).astype(np.float16))


def fig10(draws: int, seed: int, grouping_bits: int = 16) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for G in (2, 4, 8, 16, 32):
        acc: dict = {}
        for _ in range(draws):
            IG, OG = _draw(rng, 128, G, 512)
            for store in (True, False):
                p = EncoderParams(max_groups=max(16, G), store_nz_indexes=store,
                                  grouping_bits=grouping_bits)
                for method in osel.METHODS:
                    enc = osel.sparse_generation(IG, OG, method, p)
                    fp = osel.footprint(enc, G, p)
                    key = f"{method}{'' if store else '_compact'}"
                    a = acc.setdefault(key, {})
                    for k, v in {**enc.cycles.as_dict(),
                                 **{f"bits_{n}": b for n, b in fp.items()}}.items():
                        a[k] = a.get(k, 0) + v / draws
        o, b = acc["osel"], acc["baseline"]
        oc, bc = acc["osel_compact"], acc["baseline_compact"]
        out[G] = {"osel_cycles": o["total"], "baseline_cycles": b["total"],
                  "osel_bytes": o["bits_total"] / 8, "baseline_bytes": b["bits_total"] / 8,
                  "osel_bytes_compact": oc["bits_total"] / 8,
                  "baseline_bytes_compact": bc["bits_total"] / 8,
                  "dense_bytes": o["bits_dense"] / 8,
                  "cycle_speedup": b["total"] / o["total"],
                  # the encoding loops alone (Index Miss + Hit): MaxIndex and Weight
                  # Compression are the same work for both encoders
                  "loop_speedup": (b["index_miss"] + b["index_hit"])
                  / (o["index_miss"] + o["index_hit"]),
                  "loop_speedup_compact": (bc["index_miss"] + bc["index_hit"])
                  / (oc["index_miss"] + oc["index_hit"]),
                  "shared_share": (o["max_index"] + o["weight_compression"]) / o["total"],
                  "memory_vs_baseline": b["bits_total"] / o["bits_total"],
                  "memory_vs_dense": o["bits_dense"] / o["bits_total"],
                  "memory_vs_dense_compact": oc["bits_dense"] / oc["bits_total"],
                  "osel": o, "baseline": b, "osel_compact": oc, "baseline_compact": bc}
    return out


def table1_random(draws: int, seed: int) -> dict:
    rng = np.random.default_rng(seed + 1)
    out = {}
    for G in (2, 4, 8, 16):
        worst = {"row": 0.0, "threshold": 0.0}
        mean = {"row": 0.0, "threshold": 0.0}
        for _ in range(draws):
            IG, OG = _draw(rng, 128, G, 512)
            wl = grouping.mask(grouping.row_max_indexes(IG),
                               grouping.col_max_indexes(OG)).sum(axis=1)
            for s in la.SCHEMES:
                d = la.max_deviation(wl, la.allocate(wl, 3, s))
                worst[s] = max(worst[s], d)
                mean[s] += d / draws
        out[G] = {"max_threshold": worst["threshold"], "max_row": worst["row"],
                  "mean_threshold": mean["threshold"], "mean_row": mean["row"],
                  "seed": SEED_TABLE1[G]}
    return out


def _cycles(workloads, rows_per_pass: int, packing: str = "pass") -> int:
    per_core = [np.asarray(workloads)[r] for r in la.row_based(workloads, 3)]
    if packing == "stream":
        return max(timing.core_stream_cycles(w, rows_per_cycle=rows_per_pass) for w in per_core)
    return timing.layer_cycles(per_core, rows_per_pass=rows_per_pass)


def cores(hid: int, obs: int, draws: int, seed: int, rows_per_pass: int = 4,
          packing: str = "pass") -> dict:
    rng = np.random.default_rng(seed + 2)
    H = hid
    layers = {"encoder": (obs, H, True), "comm": (H, H, True), "lstm_ih": (H, 4 * H, True),
              "lstm_hh": (H, 4 * H, True), "action": (H, 5, False), "talk": (H, 2, False),
              "value": (H, 1, False)}
    back = ("comm", "lstm_ih", "lstm_hh", "action", "talk", "value")
    out = {}
    for G in (1, 2, 4, 8, 16):
        tot = {k: 0.0 for k in ("fwd_cycles", "fwd_macs", "train_cycles", "train_macs",
                                "dense_fwd_macs", "dense_train_macs")}
        per_layer = {}
        for _ in range(draws):
            for name, (M, N, grouped) in layers.items():
                if grouped and G > 1:
                    IG, OG = _draw(rng, M, G, N)
                    m = grouping.mask(grouping.row_max_indexes(IG), grouping.col_max_indexes(OG))
                else:
                    m = np.ones((M, N), bool)
                rows, cols = m.sum(axis=1), m.sum(axis=0)
                f = _cycles(rows, rows_per_pass, packing)
                t = 2 * f + (_cycles(cols, rows_per_pass, packing) if name in back else 0)
                macs = int(m.sum())
                nb = 1 if name in back else 0
                tot["fwd_cycles"] += f / draws
                tot["fwd_macs"] += macs / draws
                tot["train_cycles"] += t / draws
                tot["train_macs"] += macs * (2 + nb) / draws
                tot["dense_fwd_macs"] += M * N / draws
                tot["dense_train_macs"] += M * N * (2 + nb) / draws
                pl = per_layer.setdefault(name, {"fwd_cycles": 0.0, "fwd_util": 0.0,
                                                 "speedup_bound": timing.speedup_bound(
                                                     N, rows_per_cycle=rows_per_pass)})
                pl["fwd_cycles"] += f / draws
                pl["fwd_util"] += timing.utilization(macs, f) / draws
        out[G] = {**tot,
                  "fwd_util": timing.utilization(tot["fwd_macs"], tot["fwd_cycles"]),
                  "train_util": timing.utilization(tot["train_macs"], tot["train_cycles"]),
                  "fwd_gflops": timing.gflops(2 * tot["fwd_macs"], tot["fwd_cycles"]),
                  "fwd_gflops_effective": timing.gflops(2 * tot["dense_fwd_macs"],
                                                        tot["fwd_cycles"]),
                  "train_gflops": timing.gflops(2 * tot["train_macs"], tot["train_cycles"]),
                  "train_gflops_effective": timing.gflops(2 * tot["dense_train_macs"],
                                                          tot["train_cycles"]),
                  "per_layer": per_layer}
    for G in out:
        out[G]["speedup_inference"] = out[1]["fwd_cycles"] / out[G]["fwd_cycles"]
        out[G]["speedup_training"] = out[1]["train_cycles"] / out[G]["train_cycles"]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--draws", type=int, default=20)
    p.add_argument("--table1-draws", type=int, default=2000)
    p.add_argument("--hid", type=int, default=128)
    p.add_argument("--obs", type=int, default=29, help="inputs per agent (29: 5x5, vision 0)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--grouping-bits", type=int, default=16,
                   help="bits of a stored grouping-matrix entry (FP16: 16)")
    p.add_argument("--rows-per-pass", type=int, default=4,
                   help="sparse rows a core takes at once (the paper's Fig. 7: four)")
    p.add_argument("--packing", choices=("pass", "stream"), default="pass",
                   help="pass: the simulator's passes of four rows (Fig. 7); stream: one "
                        "flattened stream, at most --rows-per-pass rows a cycle (the most "
                        "generous reading, timing.core_stream_cycles)")
    p.add_argument("--json", default="out/learninggroup_units.json")
    a = p.parse_args(argv)
    f10 = fig10(a.draws, a.seed, a.grouping_bits)
    print("Fig. 10 (128 x 512, mean of %d draws): cycles and bytes, non-zero indexes stored "
          "(compact tuples in brackets)" % a.draws)
    print(f"{'G':>3} {'OSEL cyc':>9} {'base cyc':>9} {'x':>5} | {'MaxIdx':>6} {'Miss':>5} "
          f"{'Hit':>4} {'WComp':>6} {'loop x':>6} | {'OSEL B':>8} {'base B':>8} {'x':>5} "
          f"{'dense/OSEL':>10}")
    for G, r in f10.items():
        o = r["osel"]
        print(f"{G:3d} {r['osel_cycles']:9.0f} {r['baseline_cycles']:9.0f} "
              f"{r['cycle_speedup']:5.2f} | {o['max_index']:6.0f} {o['index_miss']:5.0f} "
              f"{o['index_hit']:4.0f} {o['weight_compression']:6.0f} "
              f"{r['loop_speedup']:6.2f} | {r['osel_bytes']:8.0f} "
              f"{r['baseline_bytes']:8.0f} {r['memory_vs_baseline']:5.2f} "
              f"{r['memory_vs_dense']:5.2f} [{r['memory_vs_dense_compact']:4.2f}]")
    t1 = table1_random(a.table1_draws, a.seed)
    print(f"Table I on {a.table1_draws} random groupings of 128 x 512 (max / mean deviation, "
          f"weights; paper's threshold, row):")
    for G, r in t1.items():
        print(f"  G={G:2d} threshold {r['max_threshold']:6.1f} / {r['mean_threshold']:5.1f}   "
              f"row {r['max_row']:6.1f} / {r['mean_row']:5.1f}   seed {r['seed']}")
    cr = cores(a.hid, a.obs, a.draws, a.seed, a.rows_per_pass, a.packing)
    print(f"IC3Net H={a.hid}, {a.obs} inputs, per agent-step on 3 x 264 VPUs at 175 MHz, "
          f"{a.rows_per_pass} rows per {'cycle (stream)' if a.packing == 'stream' else 'pass'}"
          f":")
    print(f"{'G':>3} {'fwd cyc':>8} {'util':>6} {'speedup':>7} {'GFLOPS':>7} {'eff.':>7} | "
          f"{'train cyc':>9} {'util':>6} {'speedup':>7} {'GFLOPS':>7} {'eff.':>7}")
    for G, r in cr.items():
        print(f"{G:3d} {r['fwd_cycles']:8.1f} {r['fwd_util']:6.3f} {r['speedup_inference']:7.2f} "
              f"{r['fwd_gflops']:7.1f} {r['fwd_gflops_effective']:7.1f} | "
              f"{r['train_cycles']:9.1f} {r['train_util']:6.3f} {r['speedup_training']:7.2f} "
              f"{r['train_gflops']:7.1f} {r['train_gflops_effective']:7.1f}")
    print("per layer, forward at G = 16: speed-up over dense / the bound rows x N / 264 "
          "(timing.speedup_bound)")
    for name, pl in cr[16]["per_layer"].items():
        print(f"  {name:8s} {cr[1]['per_layer'][name]['fwd_cycles'] / pl['fwd_cycles']:5.2f}x"
              f" / {pl['speedup_bound']:5.2f}x")
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, json.dumps({"command": " ".join(sys.argv), "osel": f10,
                                  "table1_random": t1, "cores": cr}, indent=1))
    print(f"JSON in {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

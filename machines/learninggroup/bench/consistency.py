"""Whether the LearningGroup paper's performance figures fit one reading of its dataflow:
the arithmetic of its numbers, and the cycles of IC3Net's layers under the core controller
(``tlm/controller.py``, ``timing.core_cycles``) with R rows a pass.

    python machines/learninggroup/bench/consistency.py [--draws 20] [--seed 1]
        [--rows 4 8 16] [--out machines/learninggroup/figures/consistency]

Part 1 is arithmetic on the paper's figures and the machine's constants (the architecture
file's clock, cores, VPUs and rows a pass). Part 2 draws ``--draws`` random groupings (every
row's and column's max index uniform over G, as FLGW's N(0, 1) grouping matrices give) per
grouped layer and G, allocates the rows to the cores row-based, and counts each core's
cycles pass by pass; a layer's cycles are its slowest core's. The forward product of a
layer M x N has M rows of N weights; its transposed product (back-propagation) N rows of M.
The heads (action, talk, value) stay dense. Writes ``OUT.md`` and ``OUT.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from rlaccel.util.files import atomic_write
from rlaccel.machines.learninggroup.config import NetConfig
from rlaccel.machines.learninggroup.ic3net import layer_shapes
from rlaccel.machines.learninggroup.report import PAPER
from rlaccel.machines.learninggroup.tlm import load_allocation as la
from rlaccel.machines.learninggroup.tlm import timing

FIGURES = Path(__file__).resolve().parents[1] / "figures"
OBS_DIM = 29          # predator-prey's observation at vision 0 (envs/predator_prey.py)


def paper_arithmetic() -> dict:
    """What the paper's figures imply, each against the machine's constants."""
    V, C, R, f = timing.VPUS, timing.CORES, timing.ROWS_PER_PASS, timing.CLOCK_MHZ
    peak = timing.peak_gflops()
    P = PAPER
    dense_row = 512 / V                          # cycles per 512-wide dense row, at best
    out = {
        "peak_gflops": peak,
        "dense_gflops_as_utilization": P["gflops_dense"] / peak,
        "g16_throughput_ratio": P["gflops_g16"] / P["gflops_dense"],
        "bound_512": timing.speedup_bound(512), "bound_128": timing.speedup_bound(128),
        "rows_per_cycle_for_inference": P["speedup_inference"] / dense_row,
        "rows_per_cycle_for_g16_throughput": P["gflops_g16"] / P["gflops_dense"] / dense_row,
        "util_g16_bound_512": R * 512 / 16 / V,
        "util_g16_bound_128": R * 128 / 16 / V,
        "rows_per_cycle_for_util_g16": P["util_sparse"] * V / (512 / 16),
        "util_exact_512": {G: (R * 512 // G) / (V * -(-(R * 512 // G) // V))
                           for G in (2, 4, 8, 16)},
        "mac_speedup_g16": 16 * P["util_sparse"] / P["util_dense"],
    }
    out["non_scaling_share_for_inference"] = 1 - P["speedup_inference"] / out["mac_speedup_g16"]
    out["clock_or_vpus_for_dense_gflops"] = P["gflops_dense"] / P["util_dense"] / (2 * C * V)
    return out


def layer_cycles(rows_idx, cols_idx, rows_per_pass: int) -> tuple[int, int]:
    """(cycles, MACs) of one masked product: rows by their max index, columns by theirs."""
    wl = np.bincount(cols_idx, minlength=int(max(rows_idx.max(), cols_idx.max())) + 1)[rows_idx]
    alloc = la.allocate(wl, timing.CORES, "row")
    return (max(timing.core_cycles(wl[a], rows_per_pass=rows_per_pass) for a in alloc),
            int(wl.sum()))


def network(draws: int, seed: int, rows: list[int], groups=(1, 2, 4, 8, 16)) -> dict:
    net = NetConfig(hid=128, groups=2)
    shapes = layer_shapes(net, OBS_DIM)
    rng = np.random.default_rng(seed)
    out: dict = {}
    for R in rows:
        for G in groups:
            acc = {}
            for _ in range(draws):
                for layer, (m, n) in shapes.items():
                    g = G if net.is_grouped(layer) else 1
                    ri, ci = rng.integers(0, g, m), rng.integers(0, g, n)
                    for kind, (a, b) in (("forward", (ri, ci)), ("transposed", (ci, ri))):
                        c, macs = layer_cycles(a, b, R)
                        k = acc.setdefault((layer, kind), [0, 0])
                        k[0] += c / draws
                        k[1] += macs / draws
            out.setdefault(R, {})[G] = {f"{layer} {kind}": {"cycles": v[0], "macs": v[1]}
                                        for (layer, kind), v in acc.items()}
    return out


def summarise(net: dict) -> dict:
    """Per R and G: the forward product's speed-up over dense (all seven layers), the 128 x
    512 LSTM input layer's alone, and the sparse MAC utilisation of each."""
    V, C = timing.VPUS, timing.CORES
    rows = {}
    for R, byG in net.items():
        dense = byG[1]
        for G, layers in byG.items():
            fwd = [k for k in layers if k.endswith("forward")]
            tot = sum(layers[k]["cycles"] for k in fwd)
            macs = sum(layers[k]["macs"] for k in fwd)
            lstm = layers["lstm_ih forward"]
            both = list(layers)
            rows.setdefault(R, {})[G] = {
                "forward_speedup": sum(dense[k]["cycles"] for k in fwd) / tot,
                "forward_utilization": macs / (tot * V * C),
                "training_products_speedup": sum(dense[k]["cycles"] for k in both)
                / sum(layers[k]["cycles"] for k in both),
                "lstm_ih_speedup": dense["lstm_ih forward"]["cycles"] / lstm["cycles"],
                "lstm_ih_utilization": lstm["macs"] / (lstm["cycles"] * V * C)}
    return rows


def markdown(arith: dict, rows: dict, draws: int, seed: int) -> str:
    a, P = arith, PAPER
    L = ["## The paper's figures against each other", "",
         "| figure | arithmetic | implies |", "|---|---|---|",
         f"| peak | 3 cores x {timing.VPUS} VPUs x 2 FLOP x {timing.CLOCK_MHZ:g} MHz | "
         f"{a['peak_gflops']:.1f} GFLOPS |",
         f"| dense {P['gflops_dense']} GFLOPS | / peak | {a['dense_gflops_as_utilization']:.1%}"
         f" utilisation, not the stated {P['util_dense']:.2%} (that would need "
         f"{a['clock_or_vpus_for_dense_gflops'] * 1e3:.0f} MHz at 264 VPUs) |",
         f"| {P['gflops_g16']} GFLOPS at G = 16 | / {P['gflops_dense']} | "
         f"{a['g16_throughput_ratio']:.2f}x, above both Fig. 13 speed-ups "
         f"({P['speedup_inference']}x, {P['speedup_training']}x) |",
         f"| {P['speedup_inference']}x at G = 16 | dense 512-wide row >= 512/264 = "
         f"{512 / timing.VPUS:.2f} cycles; sparse row 1/R cycle | R >= "
         f"{a['rows_per_cycle_for_inference']:.2f} rows a cycle; four give at most "
         f"{a['bound_512']:.2f}x (128-wide rows: {a['bound_128']:.2f}x) |",
         f"| {P['util_sparse']:.2%} sparse utilisation | at G = 16 a 512-wide row has 32 "
         f"weights | R >= {a['rows_per_cycle_for_util_g16']:.1f}; four rows give at most "
         f"{a['util_g16_bound_512']:.1%} (128-wide: {a['util_g16_bound_128']:.1%}) |",
         f"| the same, G = 2, 4, 8 | four rows of exactly 512/G weights, ceil(sum/264) | "
         + ", ".join(f"{u:.2%}" for u in a["util_exact_512"].values())
         + " at G = 2, 4, 8, 16 |",
         f"| {P['util_sparse']:.2%} / {P['util_dense']:.2%} | MAC time ratio G u_s / u_d "
         f"at G = 16 | {a['mac_speedup_g16']:.2f}x; {P['speedup_inference']}x leaves "
         f"{a['non_scaling_share_for_inference']:.1%} of the sparse time to work that does "
         f"not shrink, against a {P['generation_share']:.1%} sparse generation share |", "",
         f"## IC3Net's products under the core controller ({draws} random groupings per G, "
         f"seed {seed})", "",
         "| rows a pass R | G | forward speed-up (all layers) | forward utilisation | "
         "forward + transposed speed-up | LSTM input 128 x 512 speed-up | its utilisation |",
         "|---:|---:|---:|---:|---:|---:|---:|"]
    for R, byG in rows.items():
        for G, r in byG.items():
            L.append(f"| {R} | {G} | {r['forward_speedup']:.2f}x | "
                     f"{r['forward_utilization']:.1%} | {r['training_products_speedup']:.2f}x | "
                     f"{r['lstm_ih_speedup']:.2f}x | {r['lstm_ih_utilization']:.1%} |")
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--draws", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rows", type=int, nargs="+", default=[4, 8, 16])
    p.add_argument("--out", default=str(FIGURES / "consistency"))
    a = p.parse_args(argv)
    arith = paper_arithmetic()
    rows = summarise(network(a.draws, a.seed, a.rows))
    out = Path(a.out)
    atomic_write(out.with_suffix(".json"), json.dumps(
        {"command": "python machines/learninggroup/bench/consistency.py " + " ".join(
            sys.argv[1:] if argv is None else argv), "paper_arithmetic": arith,
         "network": rows}, indent=1, default=float))
    md = markdown(arith, rows, a.draws, a.seed)
    atomic_write(out.with_suffix(".md"), md)
    print(md, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

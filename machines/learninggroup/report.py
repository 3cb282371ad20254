"""The paper's figures on the simulated LearningGroup machine.

    rlaccel report learninggroup [-o DIR] [--draws N] [--agents A ...] [--batches B ...]
        [--groups G ...] [--rows-per-pass R ...] [--episodes E] [--seed S]
        [--learning FILE ...]

writes ``DIR/report.md``, ``DIR/report.json`` and the figures (PNG and SVG):

* **Fig. 10(a)(b)** -- OSEL against the baseline encoder on a 128 x 512 mask for G = 2, 4,
  8, 16, 32 (G = 32 on the architecture variant with ``max_groups = 32``, a 5-bit max index):
  a program of ``gmax.row``, ``gmax.col``, ``osel`` and ``wcomp`` runs on the simulator for
  ``--draws`` random grouping matrices; the cycles are the units' (MaxIndex: the max-index
  unit, Index Miss and Index Hit: the encoder, Weight Compression: the load allocation unit)
  and the memory is the sparse data the run left (unmasked FP16 weights, grouping matrices,
  tuples, index list), with grouping-matrix entries counted at 16 bits (the machine's FP16)
  and at 8. ``report.json["osel"][G]`` has ``baseline_cycles``, ``osel_cycles``,
  ``baseline_bytes``, ``osel_bytes``.
* **Fig. 11** -- accelerator throughput (GFLOPS, dense-equivalent) and GFLOPS/W against the
  agents A, the batch B and the groups G, each point one training iteration of IC3Net on
  predator-prey through the whole program (``predator_prey.toml``).
* **Fig. 13** and the utilisation -- the sparse speed-ups over the dense machine per
  environment step, for inference (the forward stage) and training (every accelerator
  cycle of the iteration), with the cores taking ``--rows-per-pass`` rows at once (4 is the
  paper's Fig. 7; the others show what the paper's speed-ups imply); the VPU utilisation of
  the dense and sparse multiply-accumulates; the latency per iteration.
* **Table I** -- the largest deviation of a core's workload from total/3, row-based (the
  machine) and threshold-based, tracked over the training runs of ``--learning`` (the JSON
  of ``machines/learninggroup/bench/learning.py``) and over this report's own runs.
* **Fig. 9** -- the success rate over training against G for each A, the simulated machine
  beside the float reference, from ``--learning`` (learning runs take hours; the bench
  script makes them).

A line for every G of Fig. 10 and every iteration as it finishes and, on a terminal, a bar of
the runs done (none with ``-q``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from rlaccel.util.errors import RlaccelError
from rlaccel.util.files import read_bytes

__all__ = ["PAPER", "measured", "fig10", "implied_miss_cycles", "throughput", "learning_tables",
           "build", "markdown", "add_arguments", "cmd_report"]

HERE = Path(__file__).parent / "programs"
MANIFEST = HERE / "predator_prey.toml"

#: the paper's figures (the LearningGroup paper): Fig. 10, Table I, section III-D and IV-E,
#: Fig. 4(a), 13
PAPER = {
    "osel_speedup_max": 5.72, "memory_min": 1.95, "memory_max": 6.81, "srm_share": 0.0268,
    "table1": {2: (86.03, 47.44), 4: (105.02, 31.37), 8: (39.19, 35.80), 16: (56.35, 36.13)},
    "util_dense": 0.8696, "util_sparse": 0.9689, "gflops_dense": 257.4, "gflops_g16": 3629.5,
    "speedup_inference": 12.52, "speedup_training": 9.75, "latency_ms": 25.04,
    "dense_accuracy": 0.664, "gflops_per_w": (7.10, 100.12), "power_w": 36.3,
    "generation_share": 0.029,
}
for _k, _v in (("osel_speedup", "osel_speedup_max"), ("sparse_utilization", "util_sparse"),
               ("sparse_generation_share", "generation_share")):
    PAPER[_k] = PAPER[_v]

_FIG10 = """.data
RIDX: .zero 128
CIDX: .zero 512
.synapse
W:  .rand 128*512+512, -0.088, 0.088, {seed}
IG: .rand 128*{G}, -1.7320508, 1.7320508, {seed}+1
OG: .rand {G}*512, -1.7320508, 1.7320508, {seed}+2
.text
        gmax.row RIDX, IG, 128, {G}
        gmax.col CIDX, OG, 512, {G}
        osel    0, RIDX, CIDX, 128, 512, {G}, {enc}, 0
        wcomp   W, 0, 128, 512, {G}, 0
        cc.halt
"""


def _arch(groups: int):
    from rlaccel.isa.arch import load_arch
    from rlaccel.programs.arch_variant import arch_variant
    base = load_arch("learninggroup")
    if groups <= base.knobs.max_groups:
        return base
    return load_arch(arch_variant("learninggroup", {"machine.max_groups": 32}))


def _fig10_run(groups: int, enc: int, seed: int) -> dict:
    from rlaccel.assembler.assemble import assemble
    from rlaccel.machines.learninggroup.tlm import osel
    from rlaccel.machines.learninggroup.tlm.state import state_of
    from rlaccel.machines.learninggroup.tlm.timing import encoder_params
    from rlaccel.tlm.platform import Platform
    arch = _arch(groups)
    binary = assemble(_FIG10.format(G=groups, enc=enc, seed=seed), "fig10.s", arch=arch).binary
    p = Platform(arch, binary, kernels="reference")
    res = p.run()
    st = state_of(p.agent)
    enc_row = next(iter(st.counters.encoder.values()))
    comp = next(iter(st.counters.compression.values()))
    cyc = {"max_index": res.units["maxindex"]["busy_cycles"],
           "index_miss": enc_row["miss_cycles"], "index_hit": enc_row["hit_cycles"],
           "weight_compression": comp["cycles"]}
    cyc["total"] = sum(cyc.values())
    params = encoder_params(p.timing, arch.knobs.max_groups)
    method = osel.METHODS[enc]
    encoding = osel.Encoding(method, st.srm[0], osel.EncoderCycles(), [])
    bits = {gb: osel.footprint(encoding, groups, _with(params, grouping_bits=gb))
            for gb in (16, 8)}
    # the baseline read as "generates the mask matrix": compact tuples for every row, and
    # Weight Compression scanning every bitvector (osel.mask_baseline), on this run's max
    # indexes (RIDX, CIDX at the start of the unified space)
    U = p.agent.memory("unified")
    mask = osel.mask_baseline(U[:128].astype(np.int64), U[128:640].astype(np.int64), groups,
                              params, cyc["max_index"]).cycles
    return {"cycles": cyc, "bits": bits, "tuples": enc_row["tuples"],
            "mask_cycles": {"index_miss": mask.index_miss,
                            "weight_compression": mask.weight_compression,
                            "total": mask.total}}


def _with(params, **kw):
    from dataclasses import replace
    return replace(params, **kw)


def fig10(groups=(2, 4, 8, 16, 32), draws: int = 5, seed: int = 1, progress=None,
          meter=None) -> dict:
    """Fig. 10 (a) and (b) from the simulator, means over ``draws`` grouping matrices;
    ``progress`` receives a line for each G, ``meter`` the runs done ``(done, total,
    unit)``."""
    out = {}
    done, total = 0, len(groups) * 2 * draws

    def one(G, enc, d):
        nonlocal done
        r = _fig10_run(G, enc, seed + 10 * d)
        done += 1
        if meter:
            meter(done, total, "runs")
        return r
    if meter:
        meter(0, total, "runs")
    for G in groups:
        t = time.perf_counter()
        row = {}
        for enc, name in ((0, "osel"), (1, "baseline")):
            runs = [one(G, enc, d) for d in range(draws)]
            cyc = {k: float(np.mean([r["cycles"][k] for r in runs])) for k in runs[0]["cycles"]}
            mem = {gb: {k: float(np.mean([r["bits"][gb][k] for r in runs])) / 8
                        for k in runs[0]["bits"][gb]} for gb in (16, 8)}
            row[name] = {"cycles": cyc, "bytes": mem[16], "bytes_grouping8": mem[8],
                         "tuples": float(np.mean([r["tuples"] for r in runs]))}
            if name == "baseline":
                row["mask_baseline"] = {"cycles": {k: float(np.mean([r["mask_cycles"][k]
                                                                     for r in runs]))
                                                   for k in runs[0]["mask_cycles"]}}
        o, b = row["osel"], row["baseline"]
        scan_total = row["mask_baseline"]["cycles"]["total"]
        row.update({
            "osel_cycles": o["cycles"]["total"], "baseline_cycles": b["cycles"]["total"],
            "osel_bytes": o["bytes"]["total"], "baseline_bytes": b["bytes"]["total"],
            "dense_bytes": o["bytes"]["dense"],
            "cycle_speedup": b["cycles"]["total"] / o["cycles"]["total"],
            # the baseline that makes the mask: compact tuples, bitvectors scanned
            "baseline_scan_cycles": scan_total,
            "scan_speedup": scan_total / o["cycles"]["total"],
            # the encoding loops alone: MaxIndex and Weight Compression are the same work
            "loop_speedup": (b["cycles"]["index_miss"] + b["cycles"]["index_hit"])
            / (o["cycles"]["index_miss"] + o["cycles"]["index_hit"]),
            "shared_share": (o["cycles"]["max_index"] + o["cycles"]["weight_compression"])
            / o["cycles"]["total"],
            "memory_vs_baseline": b["bytes"]["total"] / o["bytes"]["total"],
            "memory_vs_dense": o["bytes"]["dense"] / o["bytes"]["total"],
            "memory_vs_dense_grouping8": o["bytes_grouping8"]["dense"]
            / o["bytes_grouping8"]["total"],
            "srm_share": (o["bytes"]["srm_tuples"] + o["bytes"]["srm_nz_indexes"]
                          + o["bytes"]["index_list"]) / o["bytes"]["total"],
            "srm_share_compact": (o["bytes"]["srm_tuples"] + o["bytes"]["index_list"])
            / (o["bytes"]["total"] - o["bytes"]["srm_nz_indexes"])})
        out[G] = row
        if progress:
            progress(f"  G = {G}: OSEL {row['osel_cycles']:,.0f} cycles, the baseline "
                     f"{row['baseline_scan_cycles']:,.0f}, {draws} draw(s), "
                     f"{time.perf_counter() - t:.1f} s")
    return out


def implied_miss_cycles(f10: dict) -> dict:
    """What the paper's 5.72x asks of the baseline: at the G where OSEL is fastest, the
    cycles c of encoding one row such that (MaxIndex + 128 c + Weight Compression) / OSEL's
    cycles = 5.72, beside our measured cycles per baseline row."""
    G = min(f10, key=lambda g: f10[g]["osel_cycles"])
    r = f10[G]
    b = r["baseline"]["cycles"]
    shared = b["max_index"] + b["weight_compression"]
    needed = (PAPER["osel_speedup_max"] * r["osel_cycles"] - shared) / 128
    return {"G": G, "needed": needed, "miss_cycles": b["index_miss"] / 128}


def _run(sets: list[str], seed: int, arch_overrides: dict | None = None, meter=None) -> dict:
    from rlaccel.programs.runner import run
    return run(MANIFEST, sets, seed=seed, arch_overrides=arch_overrides, meter=meter)


def _point(r: dict) -> dict:
    steps = max(r["learning"]["steps"], 1)
    marks = r["stages"]["marks"]
    mx = r["matrix"]
    return {"gflops": r["throughput"]["gflops"],
            "gflops_effective": r["throughput"]["gflops_effective"],
            "gflops_per_w": r["throughput"]["gflops_per_w"], "power_w": r["throughput"]["power_w"],
            "vpu_matrix": r["utilization"]["vpu_matrix"],
            "vpu_inference": r["utilization"]["vpu_inference"], "vpu": r["utilization"]["vpu"],
            "steps": steps, "iteration_ms": r["latency"]["iteration_ms"],
            "forward_per_step": marks["forward"]["cycles"] / steps,
            "accelerator_per_step": r["stages"]["accelerator_cycles"] / steps,
            "matrix_per_step": sum(v["cycles"] for v in mx.values()) / steps,
            "sff_per_step": mx.get("sff", {}).get("cycles", 0) / steps,
            "grouping_share": (r["stages"]["maxindex_busy"] + r["stages"]["encoder_busy"]
                               + r["stages"]["lau_busy"]) / max(r["stages"]["accelerator_cycles"],
                                                                1),
            "table1": r["table1"]}


def throughput(agents=(3, 4, 6, 8, 10), batches=(1, 2, 4, 8, 16, 32),
               groups=(1, 2, 4, 8, 16), rows_per_pass=(4, 16, 32), episodes: int = 2,
               seed: int = 1, progress=None, stream_rows=(4,),
               share_batches=(2, 16), meter=None) -> dict:
    """Fig. 11 and 13: one training iteration per point (module docstring). The G sweep runs
    for every ``rows_per_pass`` (passes, keyed by the number) and every ``stream_rows``
    (``[timing] row_packing = 2``: one stream, at most that many rows a cycle; keyed
    ``"R stream"``). ``generation[B][G]``: the grouped points (4 rows per pass) at each
    batch of ``share_batches`` (Fig. 12(b)'s share falls with B: the sparse data is made
    once per iteration and shared by its B episodes). ``progress`` receives a line for each
    point, ``meter`` the iterations done ``(done, total, unit)``, also while one runs."""
    def shared(B):
        """The generation points at batch ``B`` are the G sweep's own (4 rows per pass)."""
        return B == episodes and 4 in rows_per_pass
    done = 0
    total = (len(agents) + len(batches) + (len(rows_per_pass) + len(stream_rows)) * len(groups)
             + sum(not shared(B) for B in share_batches) * sum(G > 1 for G in groups))

    def tick(*_):
        meter(done, total, "iterations")

    def point(sets, over=None, what=""):
        nonlocal done
        t = time.perf_counter()
        if meter:
            tick()
        r = _point(_run(["iterations=1", *sets], seed, over, meter=tick if meter else None))
        done += 1
        if meter:
            tick()
        if progress:
            progress(f"  {what}: {r['gflops_effective']:.1f} GFLOPS (dense-equivalent), "
                     f"{r['steps']} steps, {time.perf_counter() - t:.1f} s")
        return r
    out = {"agents": {}, "batches": {}, "groups": {}}
    for A in agents:
        out["agents"][A] = point([f"environment_kwargs.nagents={A}", "network.groups=1",
                                  f"learning.batch_episodes={episodes}"], what=f"A = {A}")
    for B in batches:
        out["batches"][B] = point(["environment_kwargs.nagents=4", "network.groups=1",
                                   f"learning.batch_episodes={B}"], what=f"B = {B}")
    variants = [(rpp, rpp, None if rpp == 4 else {"timing.rows_per_pass": rpp})
                for rpp in rows_per_pass]
    variants += [(f"{r} stream", r, {"timing.rows_per_pass": r, "timing.row_packing": 2})
                 for r in stream_rows]
    for key, rpp, over in variants:
        row = {}
        for G in groups:
            row[G] = point(["environment_kwargs.nagents=4", f"network.groups={G}",
                            f"learning.batch_episodes={episodes}"], over,
                           what=f"G = {G}, {key} rows")
        out["groups"][key] = row
    speed = {}
    for rpp, row in out["groups"].items():
        dense = row.get(1)
        if not dense:
            continue
        speed[rpp] = {G: {"inference": dense["forward_per_step"] / p["forward_per_step"],
                          "training": dense["accelerator_per_step"] / p["accelerator_per_step"],
                          "matrix": dense["matrix_per_step"] / p["matrix_per_step"],
                          "inference_matrix": dense["sff_per_step"] / p["sff_per_step"]}
                      for G, p in row.items() if G != 1}
    out["speedup"] = speed
    out["generation"] = {}
    for B in share_batches:
        out["generation"][B] = {
            G: (out["groups"][4][G] if shared(B) else None)
            or point(["environment_kwargs.nagents=4", f"network.groups={G}",
                      f"learning.batch_episodes={B}"], what=f"G = {G}, B = {B}")
            for G in groups if G > 1}
    return out


def measured(rep: dict, share_batch: int) -> dict:
    """The five figures other checks read at the top of report.json, each from this run:
    ``osel_speedup`` (Fig. 10(a), the largest over G, against the baseline that makes the
    mask, :func:`.tlm.osel.mask_baseline`), ``speedup_inference`` (Fig. 13, G =
    16: the forward products per environment step) and ``speedup_training`` (every
    accelerator cycle per environment step), ``sparse_utilization`` (the VPUs' sparse
    multiply-accumulates, mean over G = 2..16) and ``sparse_generation_share`` (Fig. 12(b):
    MaxIndex, encoder and weight compression over the accelerator's cycles, mean over
    G = 2..16 at B = ``share_batch``), all on the machine's architecture (its
    ``rows_per_pass``)."""
    from rlaccel.machines.learninggroup.tlm.timing import ROWS_PER_PASS
    th, f10 = rep["throughput"], rep["osel"]
    out = {}
    if f10:
        out["osel_speedup"] = max(r["scan_speedup"] for r in f10.values())
    s16 = th["speedup"].get(ROWS_PER_PASS, {}).get(16)
    if s16:
        out["speedup_inference"] = s16["inference_matrix"]
        out["speedup_training"] = s16["training"]
    sparse = [p for G, p in th["groups"].get(ROWS_PER_PASS, {}).items() if G > 1]
    if sparse:
        out["sparse_utilization"] = float(np.mean([p["vpu_matrix"] for p in sparse]))
    gen = th.get("generation", {}).get(share_batch)
    if gen:
        out["sparse_generation_share"] = float(np.mean([p["grouping_share"]
                                                        for p in gen.values()]))
    return out


def _budget(run: dict) -> tuple[int, int]:
    """A learning run's budget, iterations x B (a run stopped early: the planned one)."""
    return run.get("planned_iterations", run["iterations"]), run["batch"]


def learning_tables(files: list[str]) -> dict:
    """Fig. 9 and Table I from the JSON of ``machines/learninggroup/bench/learning.py``."""
    runs = []
    for f in files:
        try:
            doc = json.loads(read_bytes(f, RlaccelError, "learning file", 1 << 30))["runs"]
            if not isinstance(doc, list):
                raise TypeError("its runs are not a list")
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            raise RlaccelError(f"--learning {f}: not a learning-bench JSON ({exc})") from None
        for i, r in enumerate(doc):               # read now, not after the long work
            try:
                _tables([r])
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                what = f"no key {exc}" if isinstance(exc, KeyError) else str(exc)
                raise RlaccelError(f"--learning {f}: run {i} is not a run of "
                                   f"machines/learninggroup/bench/learning.py ({what})") \
                    from None
        runs += doc
    return _tables(runs)


def _tables(runs: list) -> dict:
    """Fig. 9 and Table I from the learning runs."""
    fig9 = {}
    table1 = {}
    budgets: dict[str, set] = {}            # a kind and A at several budgets: one row each
    for r in runs:
        budgets.setdefault(f"{r['kind']} A={r['agents']}", set()).add(_budget(r))
    for r in runs:
        key = f"{r['kind']} A={r['agents']}"
        if len(budgets[key]) > 1:
            key += ", {} x {}".format(*_budget(r))
        fig9.setdefault(key, {})[r["groups"]] = {
            "success_all": r["success_all"], "success_last_tenth": r["success_last_tenth"],
            "caught_all": r["caught_all"], "steps": r["steps"], "iterations": r["iterations"],
            "batch": r["batch"], "wall_min": r["wall_s"] / 60,
            "partial": bool(r.get("partial", False))}
        if r["kind"] == "machine" and r["groups"] > 1:
            for layer, row in r.get("table1", {}).items():
                t = table1.setdefault(r["groups"], {}).setdefault(layer, {"row": 0.0,
                                                                          "threshold": 0.0})
                t["row"] = max(t["row"], row["row_max"])
                t["threshold"] = max(t["threshold"], row["threshold_max"])
    return {"fig9": fig9, "table1": table1, "runs": len(runs)}


def build(*, draws=5, agents=(3, 4, 6, 8, 10), batches=(1, 2, 4, 8, 16, 32),
          groups=(1, 2, 4, 8, 16), rows_per_pass=(4, 16, 32), episodes=2, seed=1,
          learning=(), fig10_groups=(2, 4, 8, 16, 32), progress=None,
          stream_rows=(4,), share_batch=16, share_batches=(8, 32), meter=None) -> dict:
    """The report (the module doc); ``progress`` receives a line for each finished piece and
    ``meter`` how far Fig. 10 (its runs) and then Fig. 11 and 13 (their iterations) have
    gone, ``(done, total, unit)``."""
    t0 = time.perf_counter()
    say = progress or (lambda s: None)
    learned = learning_tables(list(learning)) if learning else None   # before the long work
    say("Fig. 10: OSEL and the baseline on a 128 x 512 mask")
    f10 = fig10(fig10_groups, draws=draws, seed=seed, progress=say, meter=meter)
    say("Fig. 11 and 13: training iterations of IC3Net on predator-prey")
    th = throughput(agents, batches, groups, rows_per_pass, episodes, seed, say, stream_rows,
                    share_batches=tuple(sorted({episodes, share_batch, *share_batches})),
                    meter=meter)
    rep = {"paper_figures": PAPER, "osel": f10, "osel_implied": implied_miss_cycles(f10),
           "throughput": th,
           "learning": learned,
           "settings": {"draws": draws, "episodes": episodes, "seed": seed,
                        "learning_files": list(learning)},
           "wall_s": None}
    rep["headline"] = headline(rep)
    rep.update(measured(rep, share_batch))
    rep["wall_s"] = time.perf_counter() - t0
    return rep


def _pct(v):
    return f"{v:.1%}"


def headline(rep: dict) -> list[dict]:
    """The paper's headline figures beside ours: ``figure``, ``paper``, ``ours``, ``ratio``
    (ours / paper, None where not comparable) and ``how`` (what our number is)."""
    S, f10, th = PAPER, rep["osel"], rep["throughput"]
    rows = []

    def add(figure, paper, ours, text, how, ratio=True):
        rows.append({"figure": figure, "paper": paper, "ours": ours, "text": text,
                     "ratio": (ours / paper) if ratio and paper else None, "how": how})
    best = max(f10, key=lambda g: f10[g]["scan_speedup"])
    add("Fig. 10(a) OSEL cycle speed-up (max over G)", S["osel_speedup_max"],
        f10[best]["scan_speedup"], _x(f10[best]["scan_speedup"]),
        f"G = {best}, against the baseline that makes the mask")
    best = max(f10, key=lambda g: f10[g]["cycle_speedup"])
    add("Fig. 10(a) OSEL cycle speed-up against a tuple per row (max over G)",
        S["osel_speedup_max"], f10[best]["cycle_speedup"], _x(f10[best]["cycle_speedup"]),
        f"G = {best}, the baseline keeping non-zero indexes")
    m16 = max(r["memory_vs_dense"] for r in f10.values())
    m8 = max(r["memory_vs_dense_grouping8"] for r in f10.values())
    add("Fig. 10(b) memory compression vs dense (max)", S["memory_max"], m16,
        f"{_x(m16)} ({_x(m8)} with 8-bit grouping entries)", "FP16 grouping matrices")
    share = float(np.mean([r["srm_share_compact"] for r in f10.values()]))
    add("Fig. 10(b) sparse row memory share (mean over G)", S["srm_share"], share,
        _pct(share), "compact tuples (bitvector, workload, max index) and index list")
    g4 = th["groups"].get(4, {})
    if 1 in g4:
        add("VPU utilisation, dense MACs", S["util_dense"], g4[1]["vpu_matrix"],
            _pct(g4[1]["vpu_matrix"]), "training iteration, A = 4")
        sp = [p["vpu_matrix"] for G, p in g4.items() if G > 1]
        if sp:
            add("VPU utilisation, sparse MACs (mean over G)", S["util_sparse"],
                float(np.mean(sp)), _pct(float(np.mean(sp))), "G = 2..16, 4 rows per pass")
    g4s = th["groups"].get("4 stream", {})
    sp = [p["vpu_matrix"] for G, p in g4s.items() if G > 1]
    if sp:
        add("VPU utilisation, sparse MACs (mean over G), one stream", S["util_sparse"],
            float(np.mean(sp)), _pct(float(np.mean(sp))),
            "G = 2..16, at most 4 rows a cycle (row_packing = 2)")
    if th["batches"]:
        Bmax = max(th["batches"])
        pb = th["batches"][Bmax]
        lo = min(p["gflops_effective"] for d in ("agents", "batches") for p in th[d].values())
        add("Dense throughput (GFLOPS)", S["gflops_dense"], pb["gflops_effective"],
            f"{pb['gflops_effective']:.1f} (B = {Bmax}; {lo:.1f} at the fewest steps per "
            f"iteration)", "accelerator time, host link excluded")
        add("Latency per iteration (ms)", S["latency_ms"], pb["iteration_ms"],
            f"{pb['iteration_ms']:.2f} at A = 4, B = {Bmax}", "accelerator time", ratio=False)
    if 16 in g4:
        p = g4[16]
        add("Sparse throughput at G = 16 (GFLOPS)", S["gflops_g16"], p["gflops_effective"],
            f"{p['gflops_effective']:.1f}", "dense-equivalent, 4 rows per pass")
    sp = th["speedup"]
    for rpp in sorted(sp, key=str):
        if 16 not in sp[rpp]:
            continue
        s16 = sp[rpp][16]
        add(f"Fig. 13 inference speed-up, G = 16, {_rows(rpp)}",
            S["speedup_inference"],
            s16["inference_matrix"], f"{_x(s16['inference_matrix'])} "
            f"({_x(s16['inference'])} whole forward step)", "forward products (sff)")
        add(f"Fig. 13 training speed-up, G = 16, {_rows(rpp)}", S["speedup_training"],
            s16["training"], f"{_x(s16['training'])} ({_x(s16['matrix'])} matrix "
            f"instructions)", "every accelerator cycle per environment step")
    return rows


# ---- Markdown ----------------------------------------------------------------------------
def _rows(key) -> str:
    """A G-sweep variant's name: ``4`` -> "4 rows per pass", ``"4 stream"`` -> "at most 4
    rows a cycle (one stream)"."""
    if isinstance(key, str) and key.endswith(" stream"):
        return f"at most {key.split()[0]} rows a cycle (one stream)"
    return f"{key} rows per pass"


def _by_pass(table: dict):
    """``(rows per pass, G, value)`` of a table keyed by rows per pass, then G."""
    return ((rpp, G, v) for rpp, row in table.items() for G, v in row.items())


def _section(title: str, columns: list[str], rows: list[str], note: str) -> list[str]:
    """A report section: its heading, a table of right-aligned columns, then a note."""
    return [f"## {title}", "", "| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns),
            *rows, "", note, ""]


def _x(v) -> str:
    return f"{v:.2f}x"


def markdown(rep: dict) -> str:
    from rlaccel.machines.learninggroup.tlm.timing import speedup_bound
    S = rep["paper_figures"]
    L = ["# LearningGroup (the LearningGroup paper) on the simulator", "",
         "Written by `rlaccel report learninggroup`; every number below comes from the "
         "simulator (the paper's beside it). machines/learninggroup/README.md names the cause of "
         "each residual.", "",
         "## Headline figures", "", "| figure | paper | ours | ours / paper | what ours is |",
         "|---|---:|---:|---:|---|"]
    for h in rep.get("headline", []):
        paper = h["paper"]
        paper_t = f"{paper:.2%}" if paper < 1 else f"{paper:g}"
        ratio = f"{h['ratio']:.2f}" if h["ratio"] is not None else ""
        L.append(f"| {h['figure']} | {paper_t} | {h['text']} | {ratio} | {h['how']} |")
    L.append("")
    # Fig. 10
    f10 = rep["osel"]
    L += ["## Fig. 10(a): sparse data generation cycles (128 x 512 mask)", "",
          "| G | OSEL: MaxIndex / Miss / Hit / Weight Compression | OSEL | baseline | "
          "speed-up | encoding loops alone | MaxIndex + Weight Compression in OSEL's | "
          "baseline making the mask | its speed-up |",
          "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for G, r in f10.items():
        c = r["osel"]["cycles"]
        L.append(f"| {G} | {c['max_index']:.0f} / {c['index_miss']:.0f} / "
                 f"{c['index_hit']:.0f} / {c['weight_compression']:.0f} | "
                 f"{r['osel_cycles']:.0f} | {r['baseline_cycles']:.0f} | "
                 f"{_x(r['cycle_speedup'])} | {_x(r['loop_speedup'])} | "
                 f"{r['shared_share']:.0%} | {r['baseline_scan_cycles']:.0f} | "
                 f"{_x(r['scan_speedup'])} |")
    best = max(r["cycle_speedup"] for r in f10.values())
    need = implied_miss_cycles(f10)
    mask = max(f10, key=lambda g: f10[g]["scan_speedup"])
    L += ["", f"Against the baseline that makes the mask (a compact tuple for every row, "
              f"Weight Compression scanning every row's bitvector: `osel_speedup`), OSEL is up "
              f"to {_x(f10[mask]['scan_speedup'])} faster (G = {mask}); the paper: up to "
              f"{_x(S['osel_speedup_max'])}. That baseline rises with G, as the paper's does "
              f"({f10[min(f10)]['baseline_scan_cycles']:.0f} cycles at G = {min(f10)}, "
              f"{f10[max(f10)]['baseline_scan_cycles']:.0f} at G = {max(f10)}). Against a "
              f"baseline that keeps every row's non-zero indexes, the largest speed-up is "
              f"{_x(best)}: both encoders then share MaxIndex and Weight Compression and differ "
              f"only by encoding every row (an Index Miss of {need['miss_cycles']:.1f} cycles "
              f"on average here; {_x(S['osel_speedup_max'])} at G = {need['G']} would need "
              f"about {need['needed']:.0f}); the encoding loops alone differ by up to "
              f"{_x(max(r['loop_speedup'] for r in f10.values()))}, and that baseline falls "
              f"with G ({f10[min(f10)]['baseline_cycles']:.0f} to "
              f"{f10[max(f10)]['baseline_cycles']:.0f} cycles).", "",
          "## Fig. 10(b): sparse data memory", "",
          "| G | OSEL bytes | baseline bytes | vs baseline | vs dense (FP16 grouping) | "
          "vs dense (8-bit grouping) | sparse row memory share |",
          "|---:|---:|---:|---:|---:|---:|---:|"]
    for G, r in f10.items():
        L.append(f"| {G} | {r['osel_bytes']:,.0f} | {r['baseline_bytes']:,.0f} | "
                 f"{_x(r['memory_vs_baseline'])} | {_x(r['memory_vs_dense'])} | "
                 f"{_x(r['memory_vs_dense_grouping8'])} | {r['srm_share']:.1%} "
                 f"({r['srm_share_compact']:.1%} compact) |")
    m16 = [r["memory_vs_dense"] for r in f10.values()]
    m8 = [r["memory_vs_dense_grouping8"] for r in f10.values()]
    L += ["", f"Compression against the dense 128 x 512 FP16 matrix: {_x(min(m16))} to "
              f"{_x(max(m16))} with FP16 grouping matrices, {_x(min(m8))} to {_x(max(m8))} "
              f"counting them at 8 bits, the paper: {_x(S['memory_min'])} to "
              f"{_x(S['memory_max'])}, sparse row memory {S['srm_share']:.2%} of the total.", ""]
    # Fig. 11
    th = rep["throughput"]
    L += ["## Fig. 11: accelerator throughput (one training iteration per point)", "",
          "| varied | value | GFLOPS (dense-equivalent) | GFLOPS actual | GFLOPS/W | W |",
          "|---|---:|---:|---:|---:|---:|"]
    for name, key in (("agents A (G = 1)", "agents"), ("batch B (A = 4, G = 1)", "batches")):
        for v, p in th[key].items():
            L.append(f"| {name} | {v} | {p['gflops_effective']:.1f} | {p['gflops']:.1f} | "
                     f"{p['gflops_per_w']:.2f} | {p['power_w']:.1f} |")
    base = th["groups"].get(4) or next(iter(th["groups"].values()))
    for G, p in base.items():
        L.append(f"| groups G (A = 4, 4 rows per pass) | {G} | {p['gflops_effective']:.1f} | "
                 f"{p['gflops']:.1f} | {p['gflops_per_w']:.2f} | {p['power_w']:.1f} |")
    L += ["", f"The paper: {S['gflops_dense']} GFLOPS dense, flat across A and B; up to "
              f"{S['gflops_g16']} GFLOPS at G = 16; {S['gflops_per_w'][0]}-"
              f"{S['gflops_per_w'][1]} GFLOPS/W at {S['power_w']} W.", ""]
    # utilisation and latency
    L += _section(
        "VPU utilisation and latency",
        ["G", "rows per pass", "VPU MAC utilisation (training)", "inference", "all VPU work",
         "latency per iteration (ms)", "sparse data generation share"],
        [f"| {G} | {rpp} | {p['vpu_matrix']:.1%} | {p['vpu_inference']:.1%} | {p['vpu']:.1%} | "
         f"{p['iteration_ms']:.2f} | {p['grouping_share']:.1%} |"
         for rpp, G, p in _by_pass(th["groups"])],
        f"The paper: {S['util_dense']:.2%} dense and {S['util_sparse']:.2%} sparse MAC "
        f"utilisation, {S['latency_ms']} ms average latency. \"4 stream\": "
        f"`[timing] row_packing = 2`, the cores' rows as one stream of at most four "
        f"rows a cycle (the most generous reading of Fig. 7).")
    # Fig. 13
    L += _section(
        "Fig. 13: sparse speed-up over dense (per environment step)",
        ["rows per pass", "G", "inference: forward products", "whole forward step",
         "training: matrix instructions", "every accelerator cycle"],
        [f"| {rpp} | {G} | {_x(s['inference_matrix'])} | {_x(s['inference'])} | "
         f"{_x(s['matrix'])} | {_x(s['training'])} |" for rpp, G, s in _by_pass(th["speedup"])],
        f"The paper: up to {_x(S['speedup_inference'])} (inference) and "
        f"{_x(S['speedup_training'])} (training). With at most four rows a cycle no "
        f"packing makes a layer of 512-wide rows more than "
        f"{_x(speedup_bound(512))} faster than dense, nor a 128-wide one more than "
        f"{_x(speedup_bound(128))} (`timing.speedup_bound`: 4 N / 264).")
    # Fig. 12(b)
    gen = th.get("generation", {})
    if gen:
        Gs = sorted({G for row in gen.values() for G in row})
        L += ["## Fig. 12(b): sparse data generation share of the accelerator's time", "",
              "| B | " + " | ".join(f"G = {G}" for G in Gs) + " | mean |",
              "|---:|" + "---:|" * (len(Gs) + 1)]
        for B, row in sorted(gen.items()):
            v = [row[G]["grouping_share"] for G in Gs]
            L.append(f"| {B} | " + " | ".join(_pct(x) for x in v) +
                     f" | {_pct(float(np.mean(v)))} |")
        L += ["", f"MaxIndex, the encoder and weight compression over every accelerator cycle "
                  f"of one training iteration (A = 4, 4 rows per pass). The paper: "
                  f"{S['generation_share']:.1%} on average over G up to 16 at a fixed batch it "
                  f"does not state; the sparse data is made once per iteration and shared by "
                  f"its B episodes, so the share falls with B.", ""]
    # the five measured figures
    keys = ("osel_speedup", "speedup_inference", "speedup_training", "sparse_utilization",
            "sparse_generation_share")
    if any(k in rep for k in keys):
        L += ["## The measured figures of report.json", "", "| key | paper | ours |",
              "|---|---:|---:|"]
        for k in keys:
            if k in rep:
                L.append(f"| `{k}` | {S[k]:g} | {rep[k]:.4g} |")
        L.append("")
    # Table I
    L += ["## Table I: largest deviation from the theoretical workload (weights)", ""]
    sources = []
    if rep.get("learning") and rep["learning"]["table1"]:
        sources.append(("the training runs of --learning", rep["learning"]["table1"]))
    own = {}
    for G, p in (th["groups"].get(4) or {}).items():
        if G > 1:
            own[G] = {k: {"row": v["row_max"], "threshold": v["threshold_max"]}
                      for k, v in p["table1"].items()}
    sources.append(("this report's iterations", own))
    for title, t1 in sources:
        L += [f"Tracked over {title} (threshold-based / row-based):", "",
              "| G | encoder | comm | LSTM input | LSTM hidden | paper |",
              "|---:|---:|---:|---:|---:|---:|"]
        for G, layers in sorted(t1.items(), key=lambda kv: int(kv[0])):
            cells = [f"{layers[k]['threshold']:.1f} / {layers[k]['row']:.1f}"
                     if k in layers else "" for k in ("encoder", "comm", "lstm_ih",
                                                      "lstm_hh")]
            paper = S["table1"].get(int(G))
            L.append(f"| {G} | {' | '.join(cells)} | "
                     f"{f'{paper[0]} / {paper[1]}' if paper else ''} |")
        L.append("")
    # Fig. 9
    lt = rep.get("learning")
    L += ["## Fig. 9: success rate over training", ""]
    if not lt:
        L += ["(no `--learning` file: run `machines/learninggroup/bench/fig9.py` and pass its "
              "JSON)", ""]
    else:
        L += ["| run | G | success over the run | last tenth | caught | iterations x B | "
              "steps | wall (min) |", "|---|---:|---:|---:|---:|---|---:|---:|"]
        for key, row in sorted(lt["fig9"].items()):
            for G, r in sorted(row.items(), key=lambda kv: int(kv[0])):
                L.append(f"| {key} | {G} | {r['success_all']:.1%} | "
                         f"{r['success_last_tenth']:.1%} | {r['caught_all']:.1%} | "
                         f"{r['iterations']} x {r['batch']}"
                         f"{' (stopped early)' if r.get('partial') else ''} | {r['steps']:,} | "
                         f"{r['wall_min']:.1f} |")
        L += ["", f"The paper: dense {S['dense_accuracy']:.1%} (Fig. 4(a)); accuracy holds to "
                  f"G = 4, to G = 8 with 8 or 10 agents.", ""]
    return "\n".join(L) + "\n"


# ---- figures -----------------------------------------------------------------------------
def figures(rep: dict, out: Path) -> list[Path]:
    from rlaccel.util import plots
    paths = []
    f10 = rep["osel"]
    groups = [f"G={G}" for G in f10]
    series = ("MaxIndex", "Index Miss", "Index Hit", "Weight Compression")
    keys = ("max_index", "index_miss", "index_hit", "weight_compression")
    vals = {f"G={G}": {m: [r[m]["cycles"][k] for k in keys] for m in ("baseline", "osel")}
            for G, r in f10.items()}
    paths += plots.save(plots.stacked_bars("Fig. 10(a): sparse data generation (128 x 512)",
                                           "cycles", groups, ["baseline", "osel"], series,
                                           vals), out / "fig10a_cycles")
    mseries = ("unmasked weights", "grouping matrices", "tuples", "non-zero indexes",
               "index list")
    mkeys = ("weights", "grouping", "srm_tuples", "srm_nz_indexes", "index_list")
    mvals = {f"G={G}": {m: [r[m]["bytes"][k] / 1024 for k in mkeys]
                        for m in ("baseline", "osel")} for G, r in f10.items()}
    paths += plots.save(plots.stacked_bars("Fig. 10(b): sparse data memory (FP16 grouping)",
                                           "KiB", groups, ["baseline", "osel"], mseries, mvals),
                        out / "fig10b_memory")
    th = rep["throughput"]
    series = {}
    for key, label in (("agents", "agents A"), ("batches", "batch B")):
        xs = list(th[key])
        ys = [th[key][x]["gflops_effective"] for x in xs]
        series[label] = {"x": [float(x) for x in xs], "y": ys, "lo": ys, "hi": ys}
    paths += plots.save(plots.lines("Fig. 11(a): dense throughput against A and B",
                                    "A or B", "GFLOPS", series,
                                    reference=PAPER["gflops_dense"],
                                    reference_label="paper: 257.4 GFLOPS"),
                        out / "fig11_throughput")
    gseries = {}
    for rpp, row in th["groups"].items():
        xs = list(row)
        ys = [row[g]["gflops_effective"] for g in xs]
        gseries[_rows(rpp)] = {"x": [float(g) for g in xs], "y": ys, "lo": ys,
                                           "hi": ys}
    paths += plots.save(plots.lines("Fig. 11(c): throughput against G (dense-equivalent)",
                                    "groups G", "GFLOPS", gseries, xticks=[1, 2, 4, 8, 16]),
                        out / "fig11_groups")
    sp = th["speedup"]
    if sp:
        Gs = sorted({g for row in sp.values() for g in row})
        s2 = {}
        for rpp, row in sp.items():
            for kind in ("inference", "training"):
                ys = [row[g][kind] for g in Gs]
                s2[f"{kind}, {rpp} rows"] = {"x": [f"G={g}" for g in Gs], "y": ys, "lo": ys,
                                             "hi": ys}
        paths += plots.save(plots.grouped_bars("Fig. 13: sparse speed-up over dense",
                                               "groups", "speed-up", [f"G={g}" for g in Gs],
                                               s2), out / "fig13_speedup")
    lt = rep.get("learning")
    if lt and lt["fig9"]:
        Gs = sorted({int(g) for row in lt["fig9"].values() for g in row})
        s9 = {}
        for key, row in sorted(lt["fig9"].items()):
            xs = [f"G={g}" for g in Gs if g in row or str(g) in row]
            ys = [100 * (row.get(g) or row.get(str(g)))["success_all"] for g in Gs
                  if g in row or str(g) in row]
            s9[key] = {"x": xs, "y": ys, "lo": ys, "hi": ys}
        paths += plots.save(plots.grouped_bars("Fig. 9: success rate over training",
                                               "groups", "success (%)",
                                               [f"G={g}" for g in Gs], s9),
                            out / "fig9_accuracy")
    return paths


def cmd_report(args) -> int:
    from rlaccel.util.files import atomic_write
    from rlaccel.util.progress import ProgressBar

    with ProgressBar("learninggroup report", quiet=args.quiet) as bar:
        rep = build(draws=args.draws, agents=args.agents, batches=args.batches,
                    groups=args.groups, rows_per_pass=args.rows_per_pass,
                    episodes=args.episodes, seed=args.seed, learning=args.learning or (),
                    fig10_groups=args.fig10_groups, progress=bar.line,
                    stream_rows=args.stream_rows, share_batch=args.share_batch,
                    share_batches=args.share_batches,
                    meter=bar.position if bar.shown else None)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    import copy
    from rlaccel.tlm.results import move_timing
    atomic_write(out / "report.json", json.dumps(move_timing(copy.deepcopy(rep), TIMING),
                                                 indent=1, default=float))
    atomic_write(out / "report.md", markdown(rep))
    paths = figures(rep, out)
    print(f"wrote {out / 'report.md'}, {out / 'report.json'} and {len(paths)} figure files "
          f"({rep['wall_s']:.0f} s)")
    return 0


#: what report.json keeps under ``timing``: wall clocks
TIMING = ("wall_s", "learning.fig9.*.*.wall_min")


def inputs(args) -> list[tuple[str, str]]:
    """The files the report reads: the manifest, every file it names, the learning files."""
    from rlaccel.programs.runner import manifest_inputs
    return manifest_inputs(MANIFEST) + [("--learning", f) for f in args.learning or ()]


def add_arguments(p) -> None:
    from rlaccel.util.args import file_name, int_in, seed
    p.add_argument("-o", "--output", metavar="DIR", type=file_name, default="out/learninggroup",
                   help="output directory")
    p.add_argument("--fig10-groups", type=int_in(1, 1024), nargs="+", default=[2, 4, 8, 16, 32],
                   help="G of Fig. 10 (32 runs on the max_groups = 32 variant)")
    p.add_argument("--draws", type=int_in(1, 1_000_000), default=5,
                   help="random grouping matrices per G for Fig. 10 (default 5)")
    p.add_argument("--agents", type=int_in(1, 1024), nargs="+", default=[3, 4, 6, 8, 10])
    p.add_argument("--batches", type=int_in(1, 65_536), nargs="+", default=[1, 2, 4, 8, 16, 32])
    p.add_argument("--groups", type=int_in(1, 1024), nargs="+", default=[1, 2, 4, 8, 16])
    p.add_argument("--rows-per-pass", type=int_in(1, 65_536), nargs="+", default=[4, 16, 32])
    p.add_argument("--stream-rows", type=int_in(1, 65_536), nargs="*", default=[4],
                   help="rows a cycle of the G sweep with row_packing = 2 (one stream); "
                        "none to skip (default 4)")
    p.add_argument("--episodes", type=int_in(1, 1_000_000), default=2,
                   help="episodes (B) of the iterations of the A and G sweeps (default 2)")
    p.add_argument("--share-batch", type=int_in(1, 65_536), default=16,
                   help="B of sparse_generation_share (Fig. 12(b); default 16)")
    p.add_argument("--share-batches", type=int_in(1, 65_536), nargs="*", default=[8, 32],
                   help="more B for Fig. 12(b)'s table (default 8 32; --episodes and "
                        "--share-batch always)")
    p.add_argument("--seed", type=seed, default=1)
    p.add_argument("--learning", nargs="+", metavar="FILE",
                   help="JSON of machines/learninggroup/bench/fig9.py or learning.py "
                        "(Fig. 9, Table I)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines or bar")

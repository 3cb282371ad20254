"""The ADHDP paper's Fig. 11-13 on the simulator: cycles, energy and power per update iteration.

    rlaccel report adhdp [-o DIR] [--trials N] [--seed S] [--sizes NAME ...]
                         [--arch-set TABLE.KEY=VALUE ...] [--set KEY=VALUE ...]

For the three network sizes of the paper's section V (the cart-pole manifests
``cartpole.toml``, ``cartpole_large.toml`` and the triple link ``triple_link.toml``), runs
the baseline program (Fig. 2) on the baseline chip ``adhdp`` and the virtual-update program
(Fig. 7) on the VU chip ``adhdp-vu`` (the paper built two chips) with the same settings --
``N`` trials from seed ``S``, ``stop_on_success`` off, each trial ending at ``max_steps`` or
when the plant fails -- and writes to ``DIR``:

* ``report.md`` and ``report.json``: per critic and per actor update iteration, cycles
  (Fig. 11) and energy (Fig. 13) split FF / BP_WU / VU / SCA / CC, power split by unit
  (Fig. 12: arithmetic, synapse SRAM, neuron registers and buffers, control with the clock
  tree; also without the per-cycle ``clock`` term, whose power is the same in every run),
  the VU speed-ups next to the paper's 1.47x (cycles) and 1.64x (energy), their sensitivity
  to the per-cycle term (:mod:`.calibration`: the cost model derives it from the registers'
  clock and the leakage, with no clock gating; 0x is ideal gating), the mean power of the
  baseline runs beside the paper's 25 mW, and each run's stalls. Every energy is the cost
  model's (``tlm/cost``), none fitted to the paper;
* ``fig11_cycles``, ``fig12_power``, ``fig13_energy``, each as PNG and SVG
  (:mod:`rlaccel.util.plots`).

Two readings of "per iteration" are given. **Region** is the runner's (``[regions]`` of the
manifest, docs/design.md): every cycle of the update phase -- the counter reset and first
check, the loop body with its exit checks, and for VU the commit of eq. 24 after a loop that
ran -- divided by the loop's iterations. **Body** starts at the loop body's first
instruction, so it leaves the once-per-step reset and first check out.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rlaccel.util.errors import RlaccelError

__all__ = ["SIZES", "PAPER_SPEEDUP", "ARCHS", "Size", "measure", "speedups", "sensitivity",
           "build", "markdown", "add_arguments", "cmd_report"]

HERE = Path(__file__).parent / "programs"


@dataclass(frozen=True)
class Size:
    """A network size of Fig. 11-13: its name, the paper's label and the manifest."""

    name: str
    label: str
    manifest: Path


#: the paper's three groups (labels as Fig. 11-13 print them)
SIZES = (Size("cartpole", "4-6-1, 5-6-1", HERE / "cartpole.toml"),
         Size("cartpole_large", "4-10-1, 5-12-1", HERE / "cartpole_large.toml"),
         Size("triple_link", "8-20-1, 9-20-1", HERE / "triple_link.toml"))
#: the paper's section V: VU improvement on the triple link (Fig. 11 cycles, Fig. 13 energy)
PAPER_SPEEDUP = {"cycles": 1.47, "energy": 1.64}
from rlaccel.tlm.families.base.energy import UNITS  # noqa: E402 - the Fig. 12 units
from rlaccel.tlm.families.base.models import CATEGORIES  # noqa: E402 - Fig. 11's categories
PHASES = ("critic", "actor")
#: the paper's two chips (section V): baseline and virtual update
ARCHS = {False: "adhdp", True: "adhdp-vu"}
#: multiples of the derived per-cycle clock energy the sensitivity table shows
CLOCK_SCALES = (0.0, 0.5, 1.0, 1.5, 2.0)


def _phase(reg: dict) -> dict:
    """One region's figures per iteration (from the runner's per_iteration entry)."""
    return {"iterations": reg["iterations"], "cycles": reg["cycles"],
            "energy_pj": reg["energy_pj"],
            "by_category": {k: {"cycles": float(v["cycles"]), "energy_pj": float(v["energy_pj"])}
                            for k, v in reg["by_category"].items()},
            "power_mw": reg["power_mw"], "power_by_unit_mw": reg["power_by_unit_mw"]}


def measure(size: Size, vu: bool, *, trials: int, seed: int, arch: str | None = None,
            arch_overrides: dict | None = None, overrides: list[str] | None = None,
            progress: Callable[[str], None] | None = None,
            meter: Callable[[int, int | None, str], None] | None = None) -> dict:
    """Run one configuration (on ``arch``, default the chip of its update; ``overrides``:
    manifest settings, e.g. ``learning.Ia=6``) and return its per-iteration figures (see the
    module doc); ``progress`` and ``meter`` as the runner takes them."""
    from rlaccel.isa.arch import load_arch
    from rlaccel.programs.runner import configure, run

    _, m = configure(size.manifest)
    extra = []
    for phase in PHASES:
        labels = m["regions"].get(phase)
        if not (isinstance(labels, list) and len(labels) == 3):
            raise RlaccelError(f"{size.manifest}: regions.{phase} must name three labels "
                               f"(first, end, first instruction of the loop body)")
        # the loop body alone: from its first instruction to the end of the region
        extra.append(f'regions.{phase}_body=["{labels[2]}", "{labels[1]}", "{labels[2]}"]')
    overrides = [*(overrides or []), f"virtual_update={'true' if vu else 'false'}",
                 "stop_on_success=false", *extra]
    arch = arch or ARCHS[vu]
    wall = time.perf_counter()
    r = run(size.manifest, overrides, arch=arch, seed=seed, trials=trials, progress=progress,
            arch_overrides=arch_overrides, meter=meter)
    wall = time.perf_counter() - wall
    if arch_overrides:
        from rlaccel.programs.arch_variant import arch_variant
        a = load_arch(arch_variant(arch, arch_overrides))
    else:
        a = load_arch(arch)
    region = {phase: _phase(r["per_iteration"][phase]) for phase in PHASES}
    body = {phase: _phase(r["per_iteration"][f"{phase}_body"]) for phase in PHASES}
    learn = r["learning"]
    return {"size": size.name, "label": size.label, "virtual_update": vu,
            "manifest": str(size.manifest), "program": r["program"], "arch": r["arch"],
            "seed": seed, "trials": learn["trials"],
            "plant_steps": int(sum(learn["steps_per_trial"])),
            "cycles": int(r["cycles"]), "host_cycles": int(r["host_cycles"]),
            "stall_cycles": int(r["stall_cycles"]),
            "mac_lane_utilization": float(r["utilization"]["mac_lanes"]),
            "energy_pj": float(r["energy_pj"]), "power_mw": float(r["power_mw"]),
            "clock_pj": float(r["energy_model"]["prices_pj"]["clock"]), "clock_mhz": a.knobs.clock_mhz,
            "instructions": int(r["instructions"]), "wall_s": wall,
            "region": region, "body": body}


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def speedups(base: dict, vu: dict, view: str = "region") -> dict:
    """Baseline / VU per iteration: critic, actor and combined (all iterations of both
    loops together), for cycles and energy."""
    out = {}
    for key in ("cycles", "energy_pj"):
        row = {}
        tot = {}
        for phase in PHASES:
            b, v = base[view][phase], vu[view][phase]
            row[phase] = _ratio(b[key], v[key])
        for name, r in (("base", base), ("vu", vu)):
            it = sum(r[view][p]["iterations"] for p in PHASES)
            tot[name] = (sum(r[view][p][key] * r[view][p]["iterations"] for p in PHASES) / it
                         if it else 0.0)
        row["combined"] = _ratio(tot["base"], tot["vu"])
        out["cycles" if key == "cycles" else "energy"] = row
    return out


def sensitivity(base: dict, vu: dict, view: str = "region") -> dict:
    """The energy gains (baseline / VU per iteration: critic, actor, combined) with the
    derived per-cycle ``clock`` scaled by each of :data:`CLOCK_SCALES` (energy is linear in
    it, :func:`~.calibration.energy_at`), and the baseline's whole-run power then."""
    from rlaccel.machines.adhdp.calibration import energy_at
    out = {}
    c0 = base["clock_pj"]
    for k in CLOCK_SCALES:
        row, tot = {}, {}
        for phase in PHASES:
            e = {}
            for name, r in (("base", base), ("vu", vu)):
                p = r[view][phase]
                e[name] = energy_at(p["energy_pj"], p["cycles"], r["clock_pj"], k * c0)
            row[phase] = _ratio(e["base"], e["vu"])
        for name, r in (("base", base), ("vu", vu)):
            it = sum(r[view][p]["iterations"] for p in PHASES)
            tot[name] = (sum(energy_at(r[view][p]["energy_pj"], r[view][p]["cycles"],
                                       r["clock_pj"], k * c0) * r[view][p]["iterations"]
                             for p in PHASES) / it if it else 0.0)
        row["combined"] = _ratio(tot["base"], tot["vu"])
        e_run = energy_at(base["energy_pj"], base["cycles"], base["clock_pj"], k * c0)
        row["clock_pj"] = k * c0
        row["baseline_power_mw"] = e_run * 1e-12 / (base["cycles"] / (base["clock_mhz"] * 1e6)) \
            * 1e3
        out[f"{k:g}"] = row
    return out


def _dynamic_power(r: dict, phase: str) -> dict:
    """Power by unit during a phase without the per-cycle clock term (Fig. 12's work part)."""
    p = r["region"][phase]
    out = dict(p["power_by_unit_mw"])
    out["control"] -= r["clock_pj"] * r["clock_mhz"] * 1e6 * 1e-12 * 1e3
    return out


def build(sizes: list[str] | None = None, *, trials: int = 10, seed: int = 1,
          out_dir: str | Path = "out/adhdp-report", arch_overrides: dict | None = None,
          overrides: list[str] | None = None,
          progress: Callable[[str], None] | None = None,
          meter: Callable[[int, int | None, str], None] | None = None) -> dict:
    """Run every configuration, write report.md/.json and the three charts (PNG and SVG);
    returns the report. ``meter`` receives the trials done of all the configurations'."""
    from rlaccel.util.plots import save, stacked_bars

    chosen = _choose(sizes)
    say = progress or (lambda s: None)
    runs = []
    total = 2 * len(chosen) * trials              # every run goes all its trials
    for size in chosen:
        for vu in (False, True):
            tag = f"{size.name} {'VU' if vu else 'baseline'}"
            say(f"report: {tag} ({size.label}): {trials} trials, seed {seed}, {ARCHS[vu]}")
            before = len(runs) * trials
            r = measure(size, vu, trials=trials, seed=seed, arch_overrides=arch_overrides,
                        overrides=overrides,
                        progress=lambda line, tag=tag: say(f"  {tag}: {line}"),
                        meter=None if meter is None else
                        lambda done, _, unit, before=before: meter(before + done, total, unit))
            say(f"report: {tag}: {r['cycles']:,} cycles, {r['plant_steps']} plant steps, "
                f"{r['wall_s']:.1f} s")
            runs.append(r)
    from rlaccel.machines.adhdp.calibration import PAPER_POWER_MW, clock_for_power
    base_runs = [r for r in runs if not r["virtual_update"]]
    rep = {"archs": {"baseline": ARCHS[False], "vu": ARCHS[True]},
           "arch_overrides": dict(arch_overrides or {}), "overrides": list(overrides or []),
           "trials": trials,
           "seed": seed, "stop_on_success": False,
           "paper_speedup_triple_link": PAPER_SPEEDUP, "paper_power_mw": PAPER_POWER_MW,
           "baseline_mean_power_mw": sum(r["power_mw"] for r in base_runs) / len(base_runs),
           "clock_pj": base_runs[0]["clock_pj"],
           "clock_for_paper_power_pj": clock_for_power(base_runs, base_runs[0]["clock_pj"],
                                                       base_runs[0]["clock_mhz"]),
           "runs": runs, "speedups": {}, "sensitivity": {}}
    for size in chosen:
        b, v = _pair(runs, size.name)
        rep["speedups"][size.name] = {"label": size.label, "region": speedups(b, v, "region"),
                                      "body": speedups(b, v, "body")}
        rep["sensitivity"][size.name] = {"label": size.label, "region": sensitivity(b, v)}
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RlaccelError(f"cannot create {out}: {exc.strerror}") from None
    from rlaccel.tlm.results import move_timing
    _write(out / "report.json", json.dumps(move_timing(copy.deepcopy(rep), TIMING), indent=1))
    _write(out / "report.md", markdown(rep))
    for fname, title, ylabel, fn, series in (
            ("fig11_cycles", "Cycles per update iteration (Fig. 11)", "cycles",
             lambda p: [p["by_category"][k]["cycles"] for k in CATEGORIES], CATEGORIES),
            ("fig13_energy", "Energy per update iteration (Fig. 13)", "energy (nJ)",
             lambda p: [p["by_category"][k]["energy_pj"] / 1e3 for k in CATEGORIES],
             CATEGORIES),
            ("fig12_power", "Power per update iteration by unit (Fig. 12)", "power (mW)",
             lambda p: [p["power_by_unit_mw"][u] for u in UNITS], UNITS)):
        values = {}
        for r in runs:
            for phase in PHASES:
                bar = f"{phase} {'VU' if r['virtual_update'] else 'base'}"
                values.setdefault(r["label"], {})[bar] = fn(r["region"][phase])
        bars = [f"{p} {k}" for p in PHASES for k in ("base", "VU")]
        save(stacked_bars(title, ylabel, [s.label for s in chosen], bars, list(series),
                          values), out / fname)
    say(f"report: wrote {out}/report.md, report.json and fig11_cycles, fig12_power, "
        f"fig13_energy as .png and .svg")
    return rep


def _choose(sizes: list[str] | None) -> list[Size]:
    if not sizes:
        return list(SIZES)
    known = {s.name: s for s in SIZES}
    bad = [n for n in sizes if n not in known]
    if bad:
        raise RlaccelError(f"unknown size(s) {', '.join(bad)}; known: {', '.join(known)}")
    return [known[n] for n in dict.fromkeys(sizes)]


def _pair(runs: list[dict], name: str) -> tuple[dict, dict]:
    b = next(r for r in runs if r["size"] == name and not r["virtual_update"])
    v = next(r for r in runs if r["size"] == name and r["virtual_update"])
    return b, v


def _x(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}x"


def _category_rows(runs: list, key: str, unit: float, digits: int,
                   iterations: bool = False) -> list[str]:
    """Table rows of one per-iteration figure (divided by ``unit``): total, split by
    category, body."""
    rows = []
    for r in runs:
        for phase in PHASES:
            p, b = r["region"][phase], r["body"][phase]
            cells = [r["label"], "VU" if r["virtual_update"] else "baseline", phase]
            if iterations:
                cells.append(f"{p['iterations']:,}")
            cells.append(f"{p[key] / unit:.{digits}f}")
            cells += [f"{p['by_category'][k][key] / unit:.{digits}f}" for k in CATEGORIES]
            cells.append(f"{b[key] / unit:.{digits}f}")
            rows.append("| " + " | ".join(cells) + " |")
    return rows


def markdown(rep: dict) -> str:
    """The report as Markdown tables."""
    runs = rep["runs"]
    lines = ["# ADHDP accelerator: per-iteration cycles, energy and power (the ADHDP "
             "paper's Fig. 11-13)", "",
             f"Chips `{rep['archs']['baseline']}` (baseline, Fig. 2) and `{rep['archs']['vu']}` "
             f"(virtual update, Fig. 7)"
             + (" with " + ", ".join(f"`{k}={v}`" for k, v in rep["arch_overrides"].items())
                if rep.get("arch_overrides") else "")
             + (", manifest settings " + ", ".join(f"`{o}`" for o in rep["overrides"])
                if rep.get("overrides") else "")
             + f"; settings per configuration: {rep['trials']} trials "
             f"from seed {rep['seed']} with `stop_on_success = false` (a trial ends at the "
             f"manifest's `max_steps` or when the plant fails); baseline = Fig. 2, VU = Fig. 7. "
             f"*Region*: all cycles of an update phase (loop body, exit checks, VU commit) per "
             f"loop iteration, as `rlaccel run` reports them. *Body*: the loop body only. Host "
             f"exchanges are excluded.", ""]
    lines += ["## Cycles per update iteration (Fig. 11, region)", "",
              "| network (actor, critic) | update | phase | iterations | cycles | "
              + " | ".join(CATEGORIES) + " | body cycles |",
              "|---|---|---|---:|---:|" + "---:|" * len(CATEGORIES) + "---:|"]
    lines += _category_rows(runs, "cycles", 1.0, 1, iterations=True)
    lines += ["", "## Energy per update iteration, nJ (Fig. 13, region)", "",
              "| network (actor, critic) | update | phase | energy | "
              + " | ".join(CATEGORIES) + " | body energy |",
              "|---|---|---|---:|" + "---:|" * len(CATEGORIES) + "---:|"]
    lines += _category_rows(runs, "energy_pj", 1e3, 2)
    lines += ["", "## Power by unit during the update phases, mW (Fig. 12, region)", "",
              "| network (actor, critic) | update | phase | " + " | ".join(UNITS)
              + " | total |", "|---|---|---|" + "---:|" * (len(UNITS) + 1)]
    for r in runs:
        for phase in PHASES:
            p = r["region"][phase]
            lines.append(f"| {r['label']} | {'VU' if r['virtual_update'] else 'baseline'} | "
                         f"{phase} | " + " | ".join(f"{p['power_by_unit_mw'][u]:.2f}"
                                                    for u in UNITS)
                         + f" | {p['power_mw']:.2f} |")
    lines += ["", "## Power by unit without the per-cycle clock term, mW (Fig. 12's work part)",
              "", f"The derived `clock` ({rep['clock_pj']:.1f} pJ per cycle: the registers' clock "
              f"and the leakage) draws the same power in every run; what the virtual update "
              f"changes is the rest.", "",
              "| network (actor, critic) | update | phase | " + " | ".join(UNITS)
              + " | total |", "|---|---|---|" + "---:|" * (len(UNITS) + 1)]
    for r in runs:
        for phase in PHASES:
            d = _dynamic_power(r, phase)
            lines.append(f"| {r['label']} | {'VU' if r['virtual_update'] else 'baseline'} | "
                         f"{phase} | " + " | ".join(f"{d[u]:.2f}" for u in UNITS)
                         + f" | {sum(d.values()):.2f} |")
    shares = [r["region"][p]["power_by_unit_mw"]["control"] / r["region"][p]["power_mw"]
              for r in runs for p in PHASES if r["region"][p]["power_mw"]]
    if shares:
        lines += ["", f"Control (decode, and the architecture's per-cycle `clock` energy for the "
                      f"clock tree and leakage) is {min(shares):.0%}-{max(shares):.0%} of the "
                      f"update-phase power here; the rest (arithmetic, synapse SRAM, registers) "
                      f"follows the work, which the virtual update removes."]
    lines += ["", "## Whole runs", "",
              "| network (actor, critic) | update | chip | trials | plant steps | cycles | "
              "stall cycles | host cycles | MAC-lane utilisation | energy (uJ) | power (mW) | "
              "instructions |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        lines.append(f"| {r['label']} | {'VU' if r['virtual_update'] else 'baseline'} | "
                     f"`{r['arch']}` | {r['trials']} | {r['plant_steps']:,} | {r['cycles']:,} | "
                     f"{r['stall_cycles']:,} | {r['host_cycles']:,} | "
                     f"{r['mac_lane_utilization']:.1%} | {r['energy_pj'] / 1e6:.2f} | "
                     f"{r['power_mw']:.2f} | {r['instructions']:,} |")
    lines += ["", f"Baseline runs' mean power: {rep['baseline_mean_power_mw']:.2f} mW, predicted "
                  f"by the cost model (the paper: {rep['paper_power_mw']:g} mW at 175 MHz, Table "
                  f"II; {rep['baseline_mean_power_mw'] / rep['paper_power_mw'] - 1:+.0%}). The "
                  f"paper's figure would need a per-cycle energy of "
                  f"{rep['clock_for_paper_power_pj']:.1f} pJ where the model derives "
                  f"{rep['clock_pj']:.1f} (every register bit clocked each cycle, no clock "
                  f"gating: README, \"Energy and power\")."]
    s = rep["paper_speedup_triple_link"]
    lines += ["", "## Virtual-update speed-up (baseline / VU per iteration)", "",
              f"The paper reports {s['cycles']}x fewer cycles (Fig. 11) and {s['energy']}x less "
              f"energy (Fig. 13) per iteration on the triple link (8-20-1, 9-20-1). "
              f"*Combined* weighs critic and actor by their iterations in the run.", "",
              "| network (actor, critic) | view | cycles critic | cycles actor | cycles combined "
              "| energy critic | energy actor | energy combined |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, sp in rep["speedups"].items():
        for view in ("region", "body"):
            c, e = sp[view]["cycles"], sp[view]["energy"]
            lines.append(f"| {sp['label']} | {view} | {_x(c['critic'])} | {_x(c['actor'])} | "
                         f"{_x(c['combined'])} | {_x(e['critic'])} | {_x(e['actor'])} | "
                         f"{_x(e['combined'])} |")
        if name == "triple_link":
            lines.append(f"| {sp['label']} | paper | | | {s['cycles']:.2f}x | | | "
                         f"{s['energy']:.2f}x |")
    lines += ["", "## Sensitivity of the VU energy gain to the per-cycle clock energy", "",
              "Energy is linear in the per-cycle `clock` (the registers' clock and the leakage, "
              "derived with no clock gating; 0x: ideal gating and no leakage), so the same runs "
              "give the gains (baseline / VU per iteration, region) at other values of it; "
              "*baseline power* is the baseline run's whole-run power then.", "",
              "| network (actor, critic) | clock x | clock (pJ/cycle) | energy critic | "
              "energy actor | energy combined | baseline power (mW) |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for name, sens in rep["sensitivity"].items():
        for k, row in sens["region"].items():
            lines.append(f"| {sens['label']} | {k} | {row['clock_pj']:.1f} | "
                         f"{_x(row['critic'])} | {_x(row['actor'])} | {_x(row['combined'])} | "
                         f"{row['baseline_power_mw']:.2f} |")
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    from rlaccel.util.files import atomic_write
    atomic_write(path, text)


def cmd_report(args) -> int:
    """``rlaccel report adhdp``: run the configurations, write the files, print the table."""
    from rlaccel.programs.arch_variant import parse_arch_sets
    from rlaccel.util.progress import ProgressBar
    with ProgressBar("adhdp report", quiet=args.quiet) as bar:
        rep = build(args.sizes, trials=args.trials, seed=args.seed, out_dir=args.output,
                    arch_overrides=parse_arch_sets(args.arch_set) or None,
                    overrides=list(args.set) or None, progress=bar.line,
                    meter=bar.position if bar.shown else None)
    lines = markdown(rep).splitlines()
    start = lines.index("## Virtual-update speed-up (baseline / VU per iteration)")
    print("\n".join(lines[start:]))
    return 0


DESCRIPTION = ("Run the ADHDP programs (Fig. 2 and Fig. 7) for the paper's network sizes and "
               "write Fig. 11-13 (cycles, power and energy per update iteration) as Markdown, "
               "JSON, PNG and SVG.")


#: what report.json keeps under ``timing``: each run's wall-clock seconds
TIMING = ("runs.*.wall_s",)


def inputs(args) -> list[tuple[str, str]]:
    """The files the report reads: the three sizes' manifests and every file they name."""
    from rlaccel.programs.runner import manifest_inputs
    return [i for s in SIZES for i in manifest_inputs(s.manifest)]


def add_arguments(p) -> None:
    """The options of ``rlaccel report adhdp``."""
    from rlaccel.util.args import int_in, seed
    p.description = DESCRIPTION
    p.add_argument("-o", "--output", metavar="DIR", default="out/adhdp-report",
                   help="output directory (default: out/adhdp-report)")
    p.add_argument("--trials", type=int_in(1, 1_000_000), default=10, metavar="N",
                   help="trials per configuration, stop_on_success off (default: 10)")
    p.add_argument("--seed", type=seed, default=1, metavar="S",
                   help="seed of weights and plant, the same for baseline and VU (default: 1)")
    p.add_argument("--sizes", nargs="+", metavar="NAME", choices=[s.name for s in SIZES],
                   help=f"network sizes (default: all of {', '.join(s.name for s in SIZES)})")
    p.add_argument("--arch-set", metavar="TABLE.KEY=VALUE", action="append", default=[],
                   help="change a knob of both chips, e.g. --arch-set machine.dtype=float64 "
                        "(the same workload for both) or --arch-set "
                        "datapath.forwarding=instruction")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="change a manifest setting for both chips, e.g. --set learning.Ia=6 "
                        "(checked as `rlaccel run --set` checks it)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")

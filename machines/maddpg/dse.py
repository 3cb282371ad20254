"""``rlaccel dse maddpg --manifest M [--json F]``: the MADDPG paper's design-space exploration
(section IV) for a manifest's task on its architecture's device, the design a run of that
manifest uses.

Agents are placed on the SLRs in proportion to their DSPs, every compute unit's unroll factor
follows from the base factor f by eq. 5, and f is the largest that keeps eq. 6 (DSPs and
SRAM banks under every SLR's budget) and the cost model's LUTs and flip-flops under UG949's
guideline (machines/maddpg/tlm/dse.py, rule 4); prints the unroll factors, the per-SLR DSP,
BRAM, LUT and FF use against the budgets (and the paper's Table II where it has the task),
and the predicted throughput; ``--json`` writes :meth:`~rlaccel.machines.maddpg.tlm.dse.DseResult.as_dict`
(``unroll_factors``, ``slr`` with ``dsp_used``, ``dsp_budget``, ``bram_used``,
``bram_budget`` per SLR, ...).
"""

from __future__ import annotations

import argparse

from rlaccel.machines.maddpg.tlm.dse import TABLE_II, placement_beside

__all__ = ["add_parser", "TABLE_II", "explore_manifest"]


def explore_manifest(manifest, overrides=None, arch=None, search=None,
                     outputs=None) -> dict:
    """The design a run of ``manifest`` uses, as a dictionary (with the task, the manifest
    and Table II). ``outputs`` (``{label: path}``) are checked against every file the
    manifest names before the exploration starts."""
    from rlaccel.isa.arch import load_arch
    from rlaccel.programs.runner import configure, named_inputs
    from rlaccel.util.files import check_outputs

    from rlaccel.machines.maddpg.plugin import config, design
    from rlaccel.machines.maddpg.task import make_task
    plugin, m = configure(manifest, overrides or [], arch=arch)
    if outputs:
        check_outputs(outputs, named_inputs(plugin, m))
    if plugin.machine != "maddpg":
        from rlaccel.programs.manifest import ManifestError
        raise ManifestError(f"{manifest}: machine '{plugin.machine}'; rlaccel dse maddpg "
                            f"explores the design of a maddpg manifest (machine = \"maddpg\")")
    if search is not None:
        m["dse"]["search"] = search
    cfg = config(m)
    task = make_task(cfg.env, max_cycles=cfg.max_episode_len, policies=cfg.policies,
                     env_kwargs=cfg.env_kwargs)
    a = load_arch(m["arch"])
    res = design(m, a, task)
    d = res.as_dict()
    d.update({"manifest": str(manifest), "arch": a.name, "environment": cfg.env,
              "agents": [s.name for s in task.specs],
              "table_ii": TABLE_II.get(cfg.env), "budget": m["dse"]["budget"],
              "placement": placement_beside(cfg.env, [len(s["agents"]) for s in d["slr"]])})
    return d


def _print(d: dict) -> None:
    print(f"{d['environment']} on {d['arch']} ({d['device']}, {d['clock_mhz']:g} MHz), "
          f"{d['search']} search: base factor f = {d['f']}, slowest stage "
          f"{d['stage_cycles']} cycles per sample -> {d['samples_per_s'] / 1e6:.3f} M samples/s "
          f"per pipeline (eq. 3)")
    for name, pipes in d["unroll_factors"].items():
        for p, stages in pipes.items():
            print(f"  {name} {p}: " + ", ".join(f"{s['stage']} F={s['F']} ({s['cycles']})"
                                                for s in stages))
    budget = ("UG949's guideline" if d.get("budget", "guideline") == "guideline"
              else "the SLR's capacity")
    for s in d["slr"]:
        fab = (f"; cost model: LUT {s['lut_used']:,.0f} of {s['lut_budget']:,.0f}, FF "
               f"{s['ff_used']:,.0f} of {s['ff_budget']:,.0f}, DSP {s['dsp_model']:,.0f} of "
               f"{s['dsp_model_budget']:,.0f}, BRAM {s['bram_model']:,.1f} of "
               f"{s['bram_model_budget']:,.0f} ({budget})" if "lut_used" in s else "")
        print(f"  {s['name']}: {', '.join(s['agents']) or '-'}: eq. 6: DSP {s['dsp_used']} of "
              f"{s['dsp_budget']}, BRAM {s['bram_used']:g} of {s['bram_budget']:g}{fab}")
    if d.get("over_guideline"):
        print(("  the forced design is over the cost model's budgets: " if d["search"] == "forced"
               else "  the slowest design is over UG949's guideline (within the SLRs' capacity): ")
              + "; ".join(d["over_guideline"]))
    print(f"  eq. 6 total: DSP {d['dsp_used']} ({d['dsp_percent']:.1f} % of {d['dsp_total']}), "
          f"BRAM {d['bram_used']:g} ({d['bram_percent']:.1f} % of {d['bram_total']:g})")
    t, c = d.get("table_ii"), d.get("cost_model")
    if c:
        parts = ", ".join(f"{k} {v:g}" for k, v in c["bram_parts"].items())
        line = (f"  cost model total: LUT {c['lut']:,.0f}, FF {c['ff']:,.0f}, DSP "
                f"{c['dsp']:,.0f}, BRAM {c['bram']:,.1f} ({parts})")
        if t:
            line += "; against Table II (" + t["task"] + "): " + ", ".join(
                f"{k.upper()} {t[k]:,} ({100 * (c[k] - t[k]) / t[k]:+.0f} %)"
                for k in ("lut", "ff", "dsp", "bram"))
        print(line)
    elif t:
        print(f"  Table II ({t['task']}): DSP {t['dsp']} ({t['dsp_percent']} %), BRAM "
              f"{t['bram']} ({t['bram_percent']} %), LUT {t['lut']:,} ({t['lut_percent']} %), "
              f"FF {t['ff']:,} ({t['ff_percent']} %)")
    p = d.get("placement")
    if p:
        print(f"  placement: learners per SLR {p['ours']}; Fig. 5: {p['paper']}"
              + (" (the same)" if p["same"] else " (the same counts, another SLR)"
                 if p["same_counts"] else " (different)"))


def cmd_dse(args) -> int:
    from rlaccel.programs.runner import json_text
    from rlaccel.util.files import check_outputs, save_or_rescue
    if args.machine != "maddpg":            # pragma: no cover - argparse's choices
        raise SystemExit(2)
    check_outputs({"--json": args.json}, {"the manifest": args.manifest,   # before any work
                                          "the architecture file": args.arch})
    d = explore_manifest(args.manifest, args.set, arch=args.arch, search=args.search,
                         outputs={"--json": args.json})
    _print(d)
    save_or_rescue([(args.json, json_text(d) if args.json else None)])
    return 0


def add_parser(sub) -> None:
    """Add ``dse`` to the top-level subparsers."""
    from rlaccel.util.args import file_name
    d = sub.add_parser("dse", help="design-space exploration of a machine (the MADDPG paper, IV)",
                       description=__doc__.split("\n\n")[0].replace("``", ""),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("machine", choices=["maddpg"], help="the machine (maddpg)")
    d.add_argument("--manifest", required=True, metavar="M", type=file_name,
                   help="a maddpg manifest (its task, networks and architecture)")
    d.add_argument("--json", metavar="FILE", type=file_name, help="write the design as JSON")
    d.add_argument("--arch", metavar="NAME", type=file_name,
                   help="another architecture (name or .toml) than the manifest's")
    d.add_argument("--search", choices=["base", "latency"],
                   help="the paper's base-factor search, or every balanced latency")
    d.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a manifest key (repeatable)")
    d.set_defaults(func=cmd_dse)

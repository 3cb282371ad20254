"""``rlaccel report fixar``: the FIXAR paper's Fig. 8, 9 and 10(a) and Table II's figures on the
simulator.

For every batch size (64 .. 512) and both precisions -- 32-bit activations (``fixar``, before
the quantization delay) and 16-bit (``fixar-fixed16``: the PEs' two 32x16 MACs a cycle, the
phase after the delay) -- it simulates a few training time steps of a manifest (HalfCheetah by
default; warm-up of ``B`` random steps, no evaluation) and reports, next to the paper's:

* Fig. 10(a): accelerator IPS (batch samples per second of simulated accelerator time);
* Fig. 8: system IPS, with the host's time measured on this machine and with the paper's
  2 ms, plus the PCIe run-time (``machines/fixar/tlm/pcie.py``);
* Fig. 9: the per-step breakdown (environment, host other, transfer, accelerator);
* utilisation, power and IPS/W (the architecture's ``[energy]``), the QAT speed-up;
* the cycle formulas' prediction (:func:`rlaccel.machines.fixar.tlm.timing.ddpg_step`).

Writes ``DIR/report.md``, ``DIR/report.json`` and ``DIR/fig8_system_ips``, ``fig9_breakdown``,
``fig10a_accelerator_ips`` (.png, .svg). A line for every point as it finishes and, on a
terminal, a bar of the points done (none with ``-q``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["add_arguments", "cmd_report", "measure"]

_HERE = Path(__file__).parent / "programs"
PRECISIONS = {"32-bit": "fixar", "16-bit": "fixar-fixed16"}


def add_arguments(parser) -> None:
    from rlaccel.util.args import file_name, int_in, seed
    parser.add_argument("-o", "--output", metavar="DIR", type=file_name,
                        default="out/report_fixar", help="output folder")
    parser.add_argument("--manifest", default=str(_HERE / "halfcheetah.toml"),
                        help="the run's manifest (default machines/fixar/programs/halfcheetah.toml)")
    parser.add_argument("--batches", nargs="+", type=int_in(1, 512),
                        default=[64, 128, 256, 512],
                        metavar="B", help="batch sizes (default 64 128 256 512)")
    parser.add_argument("--train-steps", type=int_in(1, 1_000_000), default=3, metavar="N",
                        help="simulated training steps per point (default 3)")
    parser.add_argument("--seed", type=seed, default=1)
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def measure(manifest: str, B: int, arch: str, train_steps: int, seed: int = 1,
            meter=None) -> dict:
    """One point: ``train_steps`` simulated training steps at batch ``B`` on ``arch``
    (``meter`` as :func:`rlaccel.programs.runner.run` takes it)."""
    from rlaccel.programs.runner import run
    from rlaccel.tlm.results import with_timing
    r = with_timing(run(manifest, [f"learning.batch={B}", f"learning.start_steps={B}",
                                   "learning.eval_every=100000000"],
                        arch=arch, seed=seed, steps=B + train_steps, meter=meter))
    keep = ("cycles_per_step", "ips", "utilization", "breakdown_s", "power", "train_steps")
    out = {k: r[k] for k in keep}
    out["sim_wall_s"] = r["sim"]["run_wall_s"]
    out["env"] = r["config"]["env_id"]
    return out


def _predicted(env_dims, B: int, half: bool, arch) -> dict:
    from rlaccel.machines.fixar.tlm.models import aap_timing
    from rlaccel.machines.fixar.tlm.timing import accelerator_ips, ddpg_step
    cfg = aap_timing(arch.knobs, arch.extra["timing"])
    st = ddpg_step(*env_dims, B, cfg, half=half)
    return {"cycles": st.cycles, "ips": accelerator_ips(st), "utilization": st.utilization()}


#: what report.json keeps under ``timing``: the figures with this host's measured time
TIMING = ("points.*.*.ips.system", "points.*.*.ips.system_paper_host",
          "points.*.*.breakdown_s.environment", "points.*.*.breakdown_s.host_other",
          "points.*.*.sim_wall_s")


def inputs(args) -> list[tuple[str, str]]:
    """The files the report reads: its manifest and every file that names."""
    from rlaccel.programs.runner import manifest_inputs
    return manifest_inputs(args.manifest)


def _points(args, bar) -> tuple[str | None, dict]:
    """Every point of the report, ``{precision: {B: point}}``, with its environment; a line
    for each as it finishes and ``bar`` at the points done."""
    from rlaccel.isa.arch import load_arch
    from rlaccel.machines.fixar.host import env_dims, make_env
    env_id = None
    points: dict = {}
    done, total = 0, len(PRECISIONS) * len(args.batches)
    for label, arch_name in PRECISIONS.items():
        arch = load_arch(arch_name)
        for B in args.batches:
            bar.position(done, total, "points")
            p = measure(args.manifest, B, arch_name, args.train_steps, args.seed,
                        meter=(lambda *_, d=done: bar.position(d, total, "points"))
                        if bar.shown else None)
            env_id = p["env"]
            dims = env_dims(make_env(env_id))
            p["predicted"] = _predicted(dims, B, label == "16-bit", arch)
            points.setdefault(label, {})[B] = p
            done += 1
            bar.position(done, total, "points")
            bar.output(f"{label} B={B}: {p['cycles_per_step']:,.0f} cycles/step, "
                      f"{p['ips']['accelerator']:,.1f} IPS (formula "
                      f"{p['predicted']['ips']:,.1f}), system {p['ips']['system']:,.1f} IPS")
    return env_id, points


def cmd_report(args) -> int:
    from rlaccel.machines.fixar.tlm import pcie
    from rlaccel.machines.fixar.results import PAPER
    from rlaccel.programs.runner import write_json
    from rlaccel.util import plots
    from rlaccel.util.files import atomic_write
    from rlaccel.util.progress import ProgressBar

    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    with ProgressBar("fixar report", quiet=args.quiet) as bar:
        env_id, points = _points(args, bar)
    rep = {"paper": PAPER, "env": env_id, "train_steps": args.train_steps, "points": points}
    import copy
    from rlaccel.tlm.results import move_timing
    write_json(out / "report.json", move_timing(copy.deepcopy(rep), TIMING))
    Bs = args.batches
    p32, p16 = points["32-bit"], points["16-bit"]
    lines = [f"# FIXAR (the FIXAR paper) on the simulator: {env_id}", "",
             f"`rlaccel report fixar -o {args.output} --train-steps {args.train_steps}` "
             f"(simulated training steps per point: {args.train_steps}; host CPU time measured "
             f"on this machine).", "",
             "## Fig. 10(a): accelerator IPS", "",
             "| B | cycles/step 32-bit | IPS 32-bit | formula | IPS 16-bit (QAT phase) | "
             "QAT speed-up | paper |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for B in Bs:
        a, h = p32[B], p16[B]
        lines.append(f"| {B} | {a['cycles_per_step']:,.0f} | {a['ips']['accelerator']:,.1f} | "
                     f"{a['predicted']['ips']:,.1f} | {h['ips']['accelerator']:,.1f} | "
                     f"{h['ips']['accelerator'] / a['ips']['accelerator']:.2f}x | "
                     f"{PAPER['accelerator_ips']:,.1f} |")
    lines += ["", "## Utilisation, power, efficiency (Table II)", "",
              "| B | PE utilization 32-bit | 16-bit | cores (aap0/aap1) | power W | IPS/W 32-bit "
              "| IPS/W 16-bit | paper |", "|---:|---:|---:|---|---:|---:|---:|---|"]
    for B in Bs:
        a, h = p32[B], p16[B]
        cores = "/".join(f"{v * 100:.1f} %" for v in a["utilization"]["cores"].values())
        lines.append(f"| {B} | {a['utilization']['pe'] * 100:.1f} % | "
                     f"{h['utilization']['pe'] * 100:.1f} % | {cores} | "
                     f"{a['power']['train_w']:.2f} | {a['power']['ips_per_w']:,.1f} | "
                     f"{h['power']['ips_per_w']:,.1f} | 92.4 %, 20.4 W, 2638.0 IPS/W |")
    lines += ["", "## Fig. 8 and 9: system IPS and the time step (32-bit)", "",
              "| B | environment ms | host other ms | transfer ms | accelerator ms | system IPS "
              "(this host) | with the paper's 2 ms host | paper |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for B in Bs:
        a = p32[B]
        bd = a["breakdown_s"]
        lines.append(f"| {B} | {bd['environment'] * 1e3:.3f} | {bd['host_other'] * 1e3:.3f} | "
                     f"{bd['transfer'] * 1e3:.3f} | {bd['accelerator'] * 1e3:.3f} | "
                     f"{a['ips']['system']:,.1f} | {a['ips']['system_paper_host']:,.1f} | "
                     f"{PAPER['system_ips']:,.1f} (B unstated) |")
    lines += ["", "The transfer includes the run time's per-call overhead "
              f"{p32[Bs[0]]['breakdown_s']['pcie_call_overhead'] * 1e3:.3f} ms from cited "
              "figures (machines/fixar/README.md section 7); the paper's own figures would imply "
              f"{pcie.overhead_from_paper() * 1e3:.2f} ms a step "
              "if its system IPS was measured at B = 512."]
    atomic_write(out / "report.md", "\n".join(lines) + "\n")
    xs = [str(B) for B in Bs]
    series = {"32-bit": plots.points(Bs, [p32[B]["ips"]["accelerator"] for B in Bs]),
              "16-bit": plots.points(Bs, [p16[B]["ips"]["accelerator"] for B in Bs])}
    plots.save(plots.lines("Fig. 10(a): accelerator IPS", "batch size", "IPS", series,
                           reference=PAPER["accelerator_ips"], reference_label="paper 53,826.8",
                           xticks=Bs), out / "fig10a_accelerator_ips")
    sysser = {"this host": plots.points(Bs, [p32[B]["ips"]["system"] for B in Bs]),
              "the paper's 2 ms host": plots.points(Bs, [p32[B]["ips"]["system_paper_host"]
                                                    for B in Bs])}
    plots.save(plots.lines("Fig. 8: system IPS", "batch size", "IPS", sysser,
                           reference=PAPER["system_ips"], reference_label="paper 25,293.3",
                           xticks=Bs), out / "fig8_system_ips")
    parts = ("environment", "host_other", "transfer", "accelerator")
    vals = {B: {"32-bit": [p32[int(B)]["breakdown_s"][k] * 1e3 for k in parts]} for B in xs}
    plots.save(plots.stacked_bars("Fig. 9: time per step (ms)", "ms", xs, ["32-bit"],
                                  list(parts), vals), out / "fig9_breakdown")
    print(f"wrote {out / 'report.md'}, report.json and the figures")
    return 0

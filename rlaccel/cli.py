"""The ``rlaccel`` command line: asm, dis, isa (and more as the simulator grows).

Exit status: 0 on success, 1 with a one-paragraph message on a user error (a bad program,
binary or architecture), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from isa.errors import RlaccelError

__all__ = ["main"]


def _defines(items: list[str]) -> dict:
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise RlaccelError(f"-D {item}: expected NAME=VALUE")
        try:
            out[name] = int(value, 0)
        except ValueError:
            try:
                out[name] = float(value)
            except ValueError:
                raise RlaccelError(f"-D {item}: the value must be a number") from None
    return out


def cmd_asm(args) -> int:
    from assembler.assemble import assemble_file
    from assembler.rlb import write

    src = Path(args.src)
    out = Path(args.output) if args.output else src.with_suffix(".rlb")
    asm = assemble_file(src, arch=args.arch, include_paths=tuple(args.include or ()),
                        defines=_defines(args.define))
    if args.listing:
        _write_text(Path(args.listing), asm.listing())
    write(out, asm.binary)
    enc, b = asm.encoding, asm.binary
    n = b.n_instructions
    print(f"{src} -> {out}: {n} instructions x {enc.instr_bits} bits = "
          f"{(n * enc.instr_bits + 7) // 8} of {asm.arch.knobs.imem_bytes} instruction-memory "
          f"bytes ({n}/{enc.imem_capacity} slots) on {asm.arch.name}; data "
          f"{len(b.data) // b.word_bytes} words, synapse {len(b.synapse) // b.word_bytes} words")
    return 0


def cmd_dis(args) -> int:
    from assembler.disassemble import disassemble_file

    text = disassemble_file(args.bin)
    if args.output:
        _write_text(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_isa(args) -> int:
    from isa.arch import load_arch
    from isa.doc import markdown, summary

    arch = load_arch(args.arch)
    sys.stdout.write(markdown(arch) if args.markdown else summary(arch))
    return 0


def cmd_run(args) -> int:
    from programs.adhdp.run import run

    quiet = args.quiet

    def progress(line: str) -> None:
        if not quiet:
            print(line, file=sys.stderr, flush=True)

    from rtl.cli import after_run, run_datapath
    datapath = run_datapath(args)                 # --rtl datapath: the MyHDL transactor
    r = run(args.manifest, args.set, arch=args.arch, seed=args.seed, trials=args.trials,
            trace_path=args.trace, json_path=args.json, progress=progress, datapath=datapath)
    print(summary(r))
    after_run(datapath)
    return 0


def summary(r: dict) -> str:
    """The terminal summary of a run report."""
    learn = r["learning"]
    lines = [f"{r['program']} on {r['arch']} (seed {r['seed']}, "
             f"{'virtual update' if r['virtual_update'] else 'regular update'}, "
             f"{r['program_bytes']} instruction bytes)",
             f"  learning: {learn['trials']} trials, "
             + (f"success at trial {learn['trials_to_success']} "
                f"({learn['max_steps']} steps balanced)" if learn["success"] else
                f"no trial reached {learn['max_steps']} steps (best "
                f"{max(learn['steps_per_trial'] or [0])})"),
             f"  machine:  {r['cycles']:,} cycles = {r['time_s'] * 1e3:.3f} ms at the clock, "
             f"{r['instructions']:,} instructions, {r['energy_pj'] / 1e6:.3f} uJ, "
             f"{r['power_mw']:.2f} mW",
             f"            MAC-lane utilisation {r['utilization']['mac_lanes']:.1%}, "
             f"stalls {r['stall_cycles']:,} cycles, host link {r['host_cycles']:,} cycles"]
    for name, reg in r["per_iteration"].items():
        cats = ", ".join(f"{k} {v['cycles']:.1f}" for k, v in reg["by_category"].items())
        lines.append(f"  per {name} iteration ({reg['iterations']:,}): {reg['cycles']:.1f} "
                     f"cycles ({cats}), {reg['energy_pj']:.0f} pJ")
    sim = r["sim"]
    lines.append(f"  simulator: {sim['wall_s']:.2f} s wall, {sim['instructions_per_s']:,.0f} "
                 f"instructions/s, {sim['cycles_per_s']:,.0f} simulated cycles/s")
    return "\n".join(lines)


def _write_text(path: Path, text: str) -> None:
    from assembler.rlb import atomic_write
    atomic_write(path, text)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rlaccel",
        description="Toolchain and simulator for reinforcement-learning accelerators.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    a = sub.add_parser("asm", help="assemble a program to an .rlb binary",
                       description="Assemble SRC into an .rlb binary.")
    a.add_argument("src", metavar="SRC", help="assembly source file (.s)")
    a.add_argument("-o", "--output", metavar="OUT", help="output binary (default: SRC.rlb)")
    a.add_argument("--arch", metavar="NAME",
                   help="architecture name or .toml path (overrides the program's .arch)")
    a.add_argument("--listing", metavar="FILE", help="also write a listing")
    a.add_argument("-D", "--define", metavar="NAME=VALUE", action="append",
                   help="predefine a constant (a .default in the source keeps it)")
    a.add_argument("-I", "--include", metavar="DIR", action="append",
                   help="also search DIR for .include files")
    a.set_defaults(func=cmd_asm)

    d = sub.add_parser("dis", help="disassemble an .rlb binary",
                       description="Disassemble BIN to assembly that reassembles to the "
                                   "same binary.")
    d.add_argument("bin", metavar="BIN", help=".rlb binary")
    d.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
    d.set_defaults(func=cmd_dis)

    r = sub.add_parser("run", help="train on a plant: assemble and simulate a manifest",
                       description="Assemble the manifest's program, run it on the simulator "
                                   "against its environment, print a summary.")
    r.add_argument("manifest", metavar="MANIFEST", help="run manifest (.toml)")
    r.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override a manifest key, e.g. --set learning.Ic=80 "
                        "--set virtual_update=true")
    r.add_argument("--arch", metavar="NAME", help="architecture (default: the manifest's)")
    r.add_argument("--seed", type=int, metavar="S", help="seed (weights and plant)")
    r.add_argument("--trials", type=int, metavar="N", help="at most N trials")
    r.add_argument("--json", metavar="FILE", help="write the full report as JSON")
    r.add_argument("--trace", metavar="FILE", help="write a Chrome/Perfetto trace")
    r.add_argument("-q", "--quiet", action="store_true", help="no per-trial progress")
    r.set_defaults(func=cmd_run)
    from rtl.cli import add_parsers, add_run_option
    add_run_option(r)

    i = sub.add_parser("isa", help="print the instruction set reference",
                       description="Print the ISA, generated from the table, for an "
                                   "architecture.")
    i.add_argument("--markdown", action="store_true", help="full Markdown reference")
    i.add_argument("--arch", metavar="NAME", default="adhdp",
                   help="architecture name or .toml path (default: adhdp)")
    i.set_defaults(func=cmd_isa)
    from programs.adhdp.report import add_parser as add_report_parser
    add_report_parser(sub)
    add_parsers(sub)                              # cosim, rtl (rtl/cli.py)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RlaccelError as exc:
        print(f"rlaccel {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("rlaccel: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

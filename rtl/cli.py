"""The RTL verbs of the command line: ``rlaccel cosim``, ``rlaccel rtl``, ``run --rtl``.

``rlaccel/cli.py`` calls :func:`add_parsers` and :func:`add_run_option` while it builds its
parser, and :func:`run_datapath` / :func:`after_run` around ``rlaccel run``. Nothing heavy is
imported until a verb runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from rlaccel.util.args import file_name, int_in, seed

__all__ = ["add_parsers", "add_run_option", "run_datapath", "after_run"]

from rlaccel.rtl.blocks import block_names, run_block_names

#: most transactions of one ``rlaccel cosim`` (the bench draws them all up front)
MAX_N = 1_000_000
#: most instructions ``rlaccel rtl speed`` replays
MAX_SPEED_INSTRUCTIONS = 1_000_000


def _unlist(sub, *names: str) -> None:
    """Take out the subparsers ``names`` the command line listed with their help only (it
    builds in full only the verb it runs; this module adds two, whichever is run)."""
    for name in names:
        if sub.choices.pop(name, None) is not None:
            sub._choices_actions[:] = [a for a in sub._choices_actions if a.dest != name]


def add_parsers(sub, run_manifest) -> None:
    """Add ``cosim`` and ``rtl`` to the top-level subparsers; ``run_manifest()`` returns the
    manifest runner ``rtl speed`` records its stream with (``rtl`` does not import
    ``programs``)."""
    blocks = block_names()
    _unlist(sub, "cosim", "rtl")
    c = sub.add_parser("cosim", help="check an RTL block against its functional model",
                       description="Drive an RTL block and its functional model (the "
                                   "machine's unit models, the number formats and the "
                                   "encoding) with the same random transactions and compare "
                                   "every result bit for bit.")
    c.add_argument("block", metavar="BLOCK", choices=blocks, help=", ".join(blocks))
    c.add_argument("--n", type=int_in(1, MAX_N), metavar="N",
                   help=f"transactions, 1 to {MAX_N:,} (default: the block's, 10000 for most, "
                        f"300 instructions for the datapath)")
    c.add_argument("--seed", type=seed, default=1, metavar="S",
                   help="random seed, 0 to 2**63-1 (default 1)")
    c.add_argument("--vcd", metavar="FILE", type=file_name,
                   help="write a VCD waveform of the block's signals, at the architecture's "
                        "clock period (picoseconds)")
    c.add_argument("--fst", metavar="FILE", type=file_name,
                   help="write an FST waveform of the block's signals (--backend verilator)")
    c.add_argument("--backend", choices=("myhdl", "icarus", "verilator"), default="myhdl",
                   help="simulate the MyHDL block, its converted Verilog in Icarus through "
                        "MyHDL co-simulation, or its Verilog compiled by Verilator (once "
                        "per Verilog, cached in .hdl/) and driven from Python (default "
                        "myhdl)")
    c.add_argument("--arch", metavar="NAME", type=file_name,
                   help="architecture (default: the block's machine)")
    c.set_defaults(func=cmd_cosim)

    r = sub.add_parser("rtl", help="RTL blocks as Verilog: convert, lint, synthesize, speed",
                       description="Convert an RTL block to Verilog, lint it with Verilator, "
                                   "synthesize it with Yosys, or measure simulation speeds.")
    acts = r.add_subparsers(dest="rtl_command", metavar="ACTION", required=True)
    v = acts.add_parser("verilog", help="convert a block to Verilog (MyHDL conversion)")
    v.add_argument("block", metavar="BLOCK", choices=blocks, help=", ".join(blocks))
    v.add_argument("-o", "--output", metavar="DIR", required=True, type=file_name,
                   help="output directory (created if missing)")
    v.add_argument("--arch", metavar="NAME", type=file_name,
                   help="architecture (default: the block's machine)")
    lt = acts.add_parser("lint", help="verilator --lint-only -Wall on the converted block")
    lt.add_argument("block", metavar="BLOCK", choices=blocks, help=", ".join(blocks))
    lt.add_argument("--arch", metavar="NAME", type=file_name,
                   help="architecture (default: the block's machine)")
    s = acts.add_parser("synth", help="synthesize the converted block with Yosys, count cells")
    s.add_argument("block", metavar="BLOCK", choices=blocks, help=", ".join(blocks))
    s.add_argument("--target", choices=("generic", "xilinx", "ice40"), default="generic",
                   help="generic gates and flip-flops (synth), Xilinx 7-series LUTs, FFs, "
                        "DSP48s and carry chains (synth_xilinx), iCE40 (synth_ice40)")
    s.add_argument("--arch", metavar="NAME", type=file_name,
                   help="architecture (default: the block's machine)")
    sp = acts.add_parser("speed", help="RTL simulation speeds on the cart-pole instruction "
                                       "stream, beside the TLM's")
    sp.add_argument("--instructions", type=int_in(1, MAX_SPEED_INSTRUCTIONS), default=200,
                    metavar="N", help="matrix instructions of the stream to replay (default "
                                      "200)")
    sp.add_argument("--manifest", metavar="MANIFEST", type=file_name,
                    help="the run whose instruction stream is replayed (default: the "
                         "measuring machine's own, ADHDP's cart-pole)")
    sp.add_argument("--json", metavar="FILE", type=file_name,
                    help="also write the measurements as JSON")
    r.set_defaults(func=cmd_rtl, run_manifest=run_manifest)


def add_run_option(run_parser: argparse.ArgumentParser) -> None:
    """``rlaccel run --rtl BLOCK [--rtl-backend myhdl|verilator]``."""
    runnable = run_block_names()
    run_parser.add_argument("--rtl", metavar="BLOCK", choices=tuple(runnable),
                            help="run one unit of the machine on its RTL through a "
                                 "transactor (the report equals the pure-TLM run's but "
                                 "for wall-clock figures): " + ", ".join(
                                     f"{b} ({m})" for b, m in runnable.items()))
    run_parser.add_argument("--rtl-backend", choices=("myhdl", "verilator"), default=None,
                            help="what --rtl runs the block on: the MyHDL simulation "
                                 "(default) or its Verilog compiled by Verilator (once per "
                                 "Verilog, cached in .hdl/; about a hundred times faster)")


def _announce(line: str) -> None:
    print(f"rlaccel: {line}", file=sys.stderr, flush=True)


def run_datapath(args):
    """The transactor ``rlaccel run`` passes to the simulator (None without --rtl), on the
    back end ``--rtl-backend`` names."""
    which = getattr(args, "rtl", None)
    backend = getattr(args, "rtl_backend", None)
    if which is None:
        if backend is not None:
            from rlaccel.util.errors import RlaccelError
            raise RlaccelError("--rtl-backend goes with --rtl BLOCK (the block it runs)")
        return None
    from rlaccel.rtl.blocks import transactor
    t = transactor(which)
    t.backend = backend or "myhdl"
    t.announce = _announce
    return t


def after_run(datapath) -> None:
    """Print the transactor's summary and end its simulation."""
    if datapath is None:
        return
    datapath.close()
    print(datapath.summary())


# -------------------------------------------------------------------------------------------
def cmd_cosim(args) -> int:
    from rlaccel.util.errors import OutputError
    from rlaccel.util.files import atomic_output, check_outputs, rescuing

    from rlaccel.tlm.arch_check import check_arch

    from rlaccel.rtl.cosim import run
    from rlaccel.rtl.blocks import bench
    n = args.n if args.n is not None else bench(args.block).default_n
    arch = check_arch(args.arch)
    if args.fst is not None and args.backend != "verilator":
        raise OutputError(f"--fst writes Verilator's FST waveform: add --backend verilator "
                          f"(or write a VCD with --vcd from {args.backend})")
    if args.fst is not None and args.vcd is not None:
        raise OutputError("one waveform a run: --vcd or --fst")
    check_outputs({"--vcd": args.vcd, "--fst": args.fst},             # before any work
                  {"the architecture file": arch.path if arch is not None else None})
    wave = args.vcd or args.fst
    if wave is None:
        return _cosim_summary(args, run(args.block, n=n, seed=args.seed,
                                        backend=args.backend, arch=args.arch,
                                        announce=_announce))
    kind = "vcd" if args.vcd else "fst"
    with rescuing():                 # a waveform that cannot be put in place is saved beside
        with atomic_output(wave, OutputError, suffix=f".{kind}", staged=True) as staged:
            r = run(args.block, n=n, seed=args.seed, backend=args.backend, arch=args.arch,
                    announce=_announce, **{kind: staged})
        return _cosim_summary(args, r)


def _cosim_summary(args, r) -> int:
    print(f"{args.block} ({args.backend}, seed {args.seed}): {r.transactions:,} transactions "
          f"checked, {r.mismatch_count} mismatches, {r.cycles:,} cycles, "
          f"{r.cycles_per_s:,.0f} RTL cycles/s ({r.wall_s:.1f} s)")
    cov = r.extra.get("coverage")
    if cov:
        print("  coverage: " + ", ".join(f"{k} {v}" for k, v in sorted(cov.items())))
    for m in r.mismatches:
        print(f"  mismatch: {m}")
    if args.vcd or args.fst:
        print(f"  waveform: {args.vcd or args.fst}")
    return 0 if r.ok else 1


def cmd_rtl(args) -> int:
    from rlaccel.util.errors import OutputError
    from rlaccel.util.files import atomic_write, check_outputs, save_or_rescue

    from rlaccel.tlm.arch_check import check_arch

    from rlaccel.rtl import hdl
    check_arch(getattr(args, "arch", None))
    if args.rtl_command == "verilog":
        outdir = Path(args.output)
        if outdir.exists() and not outdir.is_dir():
            raise OutputError(f"{outdir}: -o must be a directory")
        try:
            outdir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OutputError(f"{outdir}: cannot create the directory: {e.strerror}") from None
        target = outdir / f"{args.block}.v"
        check_outputs({"-o": target})
        with tempfile.TemporaryDirectory() as d:
            atomic_write(target, _convert(args.block, Path(d), args.arch).read_bytes(),
                         OutputError)
        print(f"{args.block} -> {target}")
        return 0
    if args.rtl_command == "lint":
        with tempfile.TemporaryDirectory() as d:
            path = _convert(args.block, Path(d), args.arch)
            left = hdl.lint(path, args.block)
        if left:
            print(f"{args.block}: verilator --lint-only -Wall: {len(left)} warning(s)")
            for w in left:
                print(f"  {w}")
            return 1
        waived = ", ".join(hdl.LINT_WAIVERS)
        print(f"{args.block}: verilator --lint-only -Wall clean (waived: {waived}; see "
              f"rtl/hdl.py LINT_WAIVERS)")
        return 0
    if args.rtl_command == "synth":
        with tempfile.TemporaryDirectory() as d:
            path = _convert(args.block, Path(d), args.arch)
            rep = hdl.synth(path, args.block, args.target)
        print(f"{args.block} on {args.target} (yosys): {rep['cells']:,} cells")
        for k, v in rep["groups"].items():
            print(f"  {k:12s} {v:8,}")
        print("  by type: " + ", ".join(f"{k} {v}" for k, v in sorted(rep["by_type"].items())))
        return 0
    if args.rtl_command == "speed":
        import json

        from rlaccel.isa.machine import machines
        speed = next((m.resolve(m.rtl_speed) for m in machines().values() if m.rtl_speed),
                     None)
        if speed is None:
            raise OutputError("no machine measures RTL speeds (none declares rtl_speed)")
        manifest = args.manifest or str(speed.MANIFEST)
        check_outputs({"--json": args.json}, {"the manifest": manifest})
        res = speed.measure(args.run_manifest(), manifest, args.instructions)
        print(speed.report(res))
        if args.json:
            save_or_rescue([(args.json, json.dumps(res, indent=1))])
        return 0
    raise AssertionError(args.rtl_command)  # pragma: no cover - argparse restricts it


def _convert(block: str, outdir: Path, arch: str | None) -> Path:
    from rlaccel.rtl.hdl import convert_block
    return convert_block(block, outdir, arch)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: rlaccel cosim ... / rlaccel rtl ...")

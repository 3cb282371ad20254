"""The ``rlaccel`` command line: asm, dis, isa, run, report, cosim, rtl, sweep, and the verbs
the machines add (``dse``).

Exit status: 0 on success, 1 with a one-paragraph message on a user error (a bad program,
binary or architecture), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rlaccel.util.errors import OutputError, RlaccelError
from rlaccel.util.args import file_name, int_in, seed

__all__ = ["main"]


def _define(text: str) -> tuple[str, int | float]:
    """``-D NAME=VALUE``: a name as the assembler writes it and a constant's value (a signed
    64-bit integer, or a finite number)."""
    import math

    from rlaccel.assembler.evaluate import CONST_MAX, CONST_MIN
    from rlaccel.assembler.parser import is_plain_name
    from rlaccel.isa.table import TABLE
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    if not is_plain_name(name) or name in TABLE:
        raise argparse.ArgumentTypeError(
            f"{name!r} is not a constant name (letters, digits, _, $ and @, not starting with "
            f"a digit, and not an instruction mnemonic)")
    try:
        v: int | float = int(value, 0)
    except ValueError:
        try:
            v = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: the value must be a number, not "
                                             f"{value!r}") from None
    if isinstance(v, int) and not CONST_MIN <= v <= CONST_MAX:
        raise argparse.ArgumentTypeError(f"{name}={value}: an integer constant is a signed "
                                         f"64-bit integer ({CONST_MIN}..{CONST_MAX})")
    if isinstance(v, float) and not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"{name}={value}: the value must be a finite number")
    return name, v


class _Defines(argparse.Action):
    """``-D`` given several times: one dict; a name given twice is a usage error."""

    def __call__(self, parser, namespace, value, option_string=None):
        defines = dict(getattr(namespace, self.dest) or {})
        name, v = value
        if name in defines:
            parser.error(f"argument -D/--define: {name} is defined twice")
        defines[name] = v
        setattr(namespace, self.dest, defines)


def _directory(text: str) -> str:
    if not Path(file_name(text)).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: not a directory")
    return text


def _default_binary(src: str) -> str | None:
    """SRC with the suffix .rlb (None when SRC names no file: its reader says why)."""
    p = Path(src)
    if p.name in ("", ".", ".."):
        return None
    return str(p.with_suffix(".rlb"))


def cmd_asm(args) -> int:
    from rlaccel.assembler.assemble import assemble_file
    from rlaccel.assembler.rlb import write
    from rlaccel.tlm.arch_check import check_arch
    from rlaccel.util.files import atomic_write, check_outputs

    src = args.src
    out = args.output or _default_binary(src)
    outputs = {("-o" if args.output else "the output (SRC.rlb, no -o given)"): out,
               "--listing": args.listing}
    check_outputs(outputs, {"the source": src})             # before any work
    check_arch(args.arch)
    asm = assemble_file(src, arch=args.arch, include_paths=tuple(args.include or ()),
                        defines=args.define or {})
    check_arch(asm.arch)                                     # the source's .arch
    check_outputs(outputs, [("the source", src)] +           # now that the includes are known
                  [("the include file", p) for p in asm.inputs[1:]])
    if args.listing:
        atomic_write(args.listing, asm.listing(), OutputError)
    write(out, asm.binary)
    enc, b = asm.encoding, asm.binary
    n = b.n_instructions
    print(f"{src} -> {out}: {n} instructions x {enc.instr_bits} bits = "
          f"{(n * enc.instr_bits + 7) // 8} of {asm.arch.knobs.imem_bytes} instruction-memory "
          f"bytes ({n}/{enc.imem_capacity} slots) on {asm.arch.name}; data "
          f"{len(b.data) // b.word_bytes} words, synapse {len(b.synapse) // b.word_bytes} words")
    return 0


def cmd_dis(args) -> int:
    from rlaccel.assembler.disassemble import disassemble_file
    from rlaccel.tlm.arch_check import check_arch
    from rlaccel.util.files import atomic_write, check_outputs

    check_outputs({"-o": args.output}, {"the binary": args.bin})
    check_arch(args.arch)
    text = disassemble_file(args.bin, arch=args.arch)
    if args.output:
        atomic_write(args.output, text, OutputError)
    else:
        sys.stdout.write(text)
    return 0


def cmd_isa(args) -> int:
    from rlaccel.isa.doc import architectures, markdown, summary
    from rlaccel.tlm.arch_check import check_arch
    from rlaccel.tlm.families import implemented

    done = implemented()
    if args.arch is None:
        if args.markdown:
            raise RlaccelError("--markdown needs --arch NAME (the reference is laid out for "
                               "one architecture's widths)")
        sys.stdout.write(architectures(done))
        return 0
    arch = check_arch(args.arch)
    sys.stdout.write(markdown(arch, done) if args.markdown else summary(arch, done))
    return 0


def cmd_run(args) -> int:
    from rlaccel.tlm.fast.jit import announce_compiles, quiet_compiles
    announce_compiles(lambda line: print(f"rlaccel run: {line}", file=sys.stderr, flush=True))
    try:
        return _run(args)
    finally:
        quiet_compiles()


def _run(args) -> int:
    from rlaccel.util.progress import ProgressBar
    with ProgressBar(Path(args.manifest).name, quiet=args.quiet) as bar:
        return _run_with(args, bar)


def _run_with(args, bar) -> int:
    """``rlaccel run`` with its progress (trial lines and a bar with the rate and the time
    left, on a terminal; none with -q) drawn by ``bar``."""
    from rlaccel.programs.runner import plugin_of, run
    from rlaccel.programs.summary import summary
    from rlaccel.rtl.cli import after_run, run_datapath

    progress = bar.line
    meter = bar.position if bar.shown else None
    from rlaccel.programs.arch_variant import parse_arch_sets
    plugin = plugin_of(args.manifest, args.set)
    options = {name: getattr(args, name) for name in RUN_OPTIONS}
    options["arch_overrides"] = parse_arch_sets(args.arch_set)
    if args.trace is None and (args.trace_max_events or args.trace_window):
        raise RlaccelError("--trace-max-events and --trace-window shape a trace: add "
                           "--trace FILE")
    if args.seeds is not None:
        return _run_batch(args, plugin, options, progress, meter, bar)
    datapath = run_datapath(args)                 # --rtl datapath: the MyHDL transactor
    if args.checkpoint_every is not None and args.checkpoint is None:
        raise RlaccelError("--checkpoint-every needs --checkpoint FILE")
    if args.checkpoint is not None:
        options["checkpoint"] = args.checkpoint
        options["checkpoint_every"] = args.checkpoint_every or 10_000
    r = run(args.manifest, args.set, arch=args.arch, seed=args.seed, trace_path=args.trace,
            json_path=args.json, progress=progress, datapath=datapath,
            kernels="reference" if args.reference_kernels else "compiled",
            trace_max_events=args.trace_max_events, trace_window_us=args.trace_window,
            meter=meter, **options)
    bar.close()
    if args.trace is not None:
        t = r["sim"]["trace"]
        left = [f"{t['beyond_max_events']:,} beyond --trace-max-events"] * bool(
            t["beyond_max_events"]) + [f"{t['outside_window']:,} outside --trace-window"] * \
            bool(t["outside_window"])
        print(f"rlaccel run: trace {args.trace}: {t['events']:,} events"
              + (f"; left out: {', '.join(left)}" if left else ", every event of the run"),
              file=sys.stderr)
    print(summary(r, plugin))
    after_run(datapath)
    return 0


#: the largest count (trials, steps, checkpoint interval) and the most seeds of one batch
COUNT_MAX = 1 << 40
SEEDS_MAX = 10_000


def _window(spec: str) -> tuple[float, float]:
    """``FROM:TO`` microseconds of simulated time, ``0 <= FROM < TO``."""
    try:
        a, b = (float(x) for x in spec.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{spec!r} is not FROM:TO in microseconds "
                                         f"(e.g. 0:500)") from None
    if not (0 <= a < b < float("inf")):
        raise argparse.ArgumentTypeError(f"{spec!r}: the span must start at 0 or later and "
                                         f"end after it starts")
    return a, b


def _seeds(spec: str) -> list[int]:
    """``1-50``, ``3,5,9`` or ``1-4,10``: the seeds of ``--seeds`` (seeds as ``--seed``
    takes them; at most :data:`SEEDS_MAX` of them)."""
    from rlaccel.util.args import SEED_MAX
    out: list[int] = []
    for part in spec.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            a, b = (int(lo), int(hi) if sep else int(lo)) if len(part) < 60 else (None, None)
        except ValueError:
            a = b = None
        if a is None or not (0 <= a <= SEED_MAX and 0 <= b <= SEED_MAX):
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not a seed (0 to "
                                             f"{SEED_MAX:,}) or a range of them like 1-50")
        if b < a:
            raise argparse.ArgumentTypeError(f"the range {part.strip()} is empty")
        if len(out) + b - a + 1 > SEEDS_MAX:
            raise argparse.ArgumentTypeError(f"{spec!r} names more than {SEEDS_MAX:,} seeds")
        out.extend(range(a, b + 1))
    return out


def _run_batch(args, plugin, options, progress, meter, bar) -> int:
    from rlaccel.programs.runner import run_batch
    for flag, given in (("--trace", args.trace), ("--rtl", getattr(args, "rtl", None)),
                        ("--reference-kernels", args.reference_kernels),
                        ("--seed", args.seed), ("--checkpoint", args.checkpoint)):
        if given:
            raise RlaccelError(f"--seeds runs a batch of seeds; it does not take {flag} (run "
                               f"one seed for that)")
    b = run_batch(args.manifest, args.set, seeds=args.seeds, arch=args.arch,
                  json_path=args.json, progress=progress, meter=meter, **options)
    bar.close()
    for r in b["members"]:
        lines = plugin.summary(r).splitlines()
        print(f"seed {r['seed']}: {lines[1].strip() if len(lines) > 1 else lines[0]}")
    sim, t = b["sim"], b["timing"]["sim"]
    how = "one simulation" if sim["run"] == "batch" else "one after another"
    print(f"batch: {sim['members']} runs ({how}), {sim['instructions']:,} instructions in "
          f"{t['run_s']:.2f} s ({t['instructions_per_s']:,.0f} instructions/s), "
          f"{t['setup_s']:.2f} s to assemble and load")
    return 0


def cmd_report(args) -> int:
    from rlaccel.programs.plugin import load_plugin
    if args.machine is None:
        print("machines with reports (rlaccel report MACHINE --help):")
        for fam, plugin in _report_plugins().items():
            print(f"  {fam:14s} {plugin.description}")
        return 0
    from rlaccel.util.files import check_output_dir, make_output_dir, rescuing
    out = getattr(args, "output", None)
    plugin = load_plugin(args.machine)
    check_output_dir(out, inputs=plugin.report_inputs(args),      # before any work
                     writes=plugin.report_writes)
    if out is not None:
        make_output_dir(out)
    with rescuing(root=out):        # files that cannot be written at the end are saved beside
        return plugin.report(args)


def _report_plugins() -> dict:
    from rlaccel.programs.plugin import load_plugin, plugin_machines
    plugins = {f: load_plugin(f) for f in plugin_machines()}
    return {f: p for f, p in plugins.items() if p.has_report}


def _runner():
    from rlaccel.programs.runner import run
    return run


#: options of ``rlaccel run`` that a machine maps to one of its manifest keys
RUN_OPTIONS = {"trials": "at most N trials (trial-based machines)",
               "steps": "N environment steps (step-based machines)"}


class _Version(argparse.Action):
    """``--version``: rlaccel's version, then every dependency a result depends on (what a
    run report records under ``versions``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from rlaccel.util.version import versions
        v = versions()
        print(f"rlaccel {v.pop('rlaccel')}")
        print("  " + ", ".join(f"{k} {x or 'not installed'}" for k, x in v.items()))
        parser.exit()


def _add_asm(sub) -> None:
    a = sub.add_parser("asm", help="assemble a program to an .rlb binary",
                       description="Assemble SRC into an .rlb binary.")
    a.add_argument("src", metavar="SRC", type=file_name, help="assembly source file (.s)")
    a.add_argument("-o", "--output", metavar="OUT", type=file_name,
                   help="output binary (default: SRC.rlb)")
    a.add_argument("--arch", metavar="NAME", type=file_name,
                   help="architecture name or .toml path (overrides the program's .arch)")
    a.add_argument("--listing", metavar="FILE", type=file_name, help="also write a listing")
    a.add_argument("-D", "--define", metavar="NAME=VALUE", type=_define, action=_Defines,
                   help="predefine a constant (a .default in the source keeps it)")
    a.add_argument("-I", "--include", metavar="DIR", type=_directory, action="append",
                   help="also search DIR for .include files")
    a.set_defaults(func=cmd_asm)


def _add_dis(sub) -> None:
    d = sub.add_parser("dis", help="disassemble an .rlb binary",
                       description="Disassemble BIN to assembly that reassembles to the "
                                   "same binary.")
    d.add_argument("bin", metavar="BIN", type=file_name, help=".rlb binary")
    d.add_argument("-o", "--output", metavar="OUT", type=file_name,
                   help="output file (default: stdout)")
    d.add_argument("--arch", metavar="NAME", type=file_name,
                   help="read the binary against this architecture (a name or a .toml path) "
                        "instead of the installed one it names")
    d.set_defaults(func=cmd_dis)


def _add_run(sub) -> None:
    r = sub.add_parser("run", help="train on a plant: assemble and simulate a manifest",
                       description="Assemble the manifest's program, run it on the simulator "
                                   "against its environment, print a summary.")
    r.add_argument("manifest", metavar="MANIFEST", type=file_name, help="run manifest (.toml)")
    r.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override a manifest key, e.g. --set learning.Ic=80 "
                        "--set virtual_update=true")
    r.add_argument("--arch", metavar="NAME", type=file_name,
                   help="architecture (default: the manifest's)")
    r.add_argument("--arch-set", metavar="TABLE.KEY=VALUE", action="append", default=[],
                   help="change an architecture knob for this run, e.g. --arch-set "
                        "machine.dtype=q6.12 --arch-set machine.lanes=8")
    r.add_argument("--seed", type=seed, metavar="S", help="seed (weights and plant)")
    r.add_argument("--seeds", type=_seeds, metavar="LIST",
                   help="run these seeds (e.g. 1-50 or 1,4,9), configured once: one "
                        "batched simulation where the machine answers the runs' exchanges "
                        "together, else one after another; --json then holds every run's "
                        "report")
    for name, text in RUN_OPTIONS.items():
        r.add_argument(f"--{name}", type=int_in(1, COUNT_MAX), metavar="N", help=text)
    r.add_argument("--json", metavar="FILE", type=file_name, help="write the full report as JSON")
    r.add_argument("--trace", metavar="FILE", type=file_name,
                   help="write a Chrome/Perfetto trace of every event of the run")
    r.add_argument("--trace-max-events", type=int_in(1, COUNT_MAX), metavar="N",
                   help="keep at most N events in the trace")
    r.add_argument("--trace-window", type=_window, metavar="FROM:TO",
                   help="keep only the trace's events that overlap this span of simulated "
                        "time, in microseconds (e.g. 0:500)")
    r.add_argument("-q", "--quiet", action="store_true", help="no per-trial progress")
    r.add_argument("--checkpoint", metavar="FILE", type=file_name,
                   help="save the whole run to FILE every --checkpoint-every host exchanges, "
                        "and resume from FILE if it holds one (removed when the run ends)")
    r.add_argument("--checkpoint-every", type=int_in(1, COUNT_MAX), metavar="N",
                   help="host exchanges between checkpoints (default 10000)")
    r.add_argument("--reference-kernels", action="store_true",
                   help="run every instruction through its reference semantics in the "
                        "Python loop (slow; the compiled loop gives the same bits)")
    r.set_defaults(func=cmd_run)
    from rlaccel.rtl.cli import add_run_option
    add_run_option(r)


def _add_isa(sub) -> None:
    i = sub.add_parser("isa", help="print the instruction set reference",
                       description="Print the ISA, generated from the table, for an "
                                   "architecture; without --arch, list the installed "
                                   "architectures.")
    i.add_argument("--markdown", action="store_true",
                   help="full Markdown reference (with --arch)")
    i.add_argument("--arch", metavar="NAME", type=file_name,
                   help="architecture name or .toml path")
    i.set_defaults(func=cmd_isa)


def _add_report(sub) -> None:
    rep = sub.add_parser("report", help="reproduce a machine's paper's figures on the simulator",
                         description="Run a machine's programs and write its paper's figures "
                                     "as Markdown, JSON and plots; without MACHINE, list the "
                                     "machines that have reports.")
    machines = rep.add_subparsers(dest="machine", metavar="MACHINE")
    for fam, plugin in _report_plugins().items():
        mp = machines.add_parser(fam, help=plugin.description)
        plugin.add_report_arguments(mp)
    rep.set_defaults(func=cmd_report, machine=None)


def _add_rtl(sub) -> None:
    from rlaccel.rtl.cli import add_parsers
    add_parsers(sub, _runner)


def _add_sweep(sub) -> None:
    from rlaccel.sweep.cli import add_parser
    add_parser(sub)


#: the verbs, in the order ``rlaccel --help`` lists them: verb -> (the function that adds its
#: parser, the module whose source holds its ``add_parser`` call)
_VERBS = {"asm": (_add_asm, __name__), "dis": (_add_dis, __name__), "run": (_add_run, __name__),
          "isa": (_add_isa, __name__), "report": (_add_report, __name__),
          "cosim": (_add_rtl, "rlaccel.rtl.cli"), "rtl": (_add_rtl, "rlaccel.rtl.cli"),
          "sweep": (_add_sweep, "rlaccel.sweep.cli")}


def _verb(argv: list[str]) -> str | None:
    """The verb a command line names: its first word that is not an option (the top level
    takes only ``--help`` and ``--version``, which have no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _helps(module: str) -> dict[str, str]:
    """``verb -> help`` of the ``add_parser("verb", help="...")`` calls in a module's source,
    read without importing the module (what ``rlaccel --help`` lists of a verb it does not
    build; only the module's package is imported, to find the file)."""
    import ast
    import importlib.util
    parent, _, leaf = module.rpartition(".")
    folder = importlib.util.find_spec(parent).submodule_search_locations[0]
    out = {}
    for node in ast.walk(ast.parse((Path(folder) / f"{leaf}.py").read_text())):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_parser" and node.args
                and isinstance(node.args[0], ast.Constant)):
            text = next((k.value for k in node.keywords if k.arg == "help"), None)
            if isinstance(text, ast.Constant):
                out[node.args[0].value] = text.value
    return out


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. Only the verb ``argv`` names is built in full (with what
    its options import: the machines' report plug-ins, the RTL blocks, the sweep driver);
    the others are listed with their help, so ``rlaccel --help`` imports almost nothing.
    Without ``argv``, every verb is built."""
    p = argparse.ArgumentParser(
        prog="rlaccel",
        description="Toolchain and simulator for reinforcement-learning accelerators.")
    p.add_argument("--version", action=_Version, nargs=0,
                   help="print rlaccel's version and the versions of its simulation "
                        "dependencies, then exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    from rlaccel.isa.machine import machines
    verbs = dict(_VERBS)
    for m in machines().values():                 # the machines' own verbs (dse)
        for verb, module in m.verbs.items():
            verbs[verb] = (lambda s, m=m, module=module: m.resolve(module).add_parser(s),
                           m.qualified(module))
    wanted = _verb(argv) if argv is not None else None
    built = verbs[wanted][1] if wanted in verbs else None     # the module that adds it
    helps: dict[str, dict] = {}
    for verb, (add, module) in verbs.items():
        if verb in sub.choices:
            continue                      # added with another verb of its module
        if argv is None or verb == wanted or (module == built and module != __name__):
            add(sub)                      # (a module adds all its verbs at once)
        else:
            if module not in helps:
                helps[module] = _helps(module)
            sub.add_parser(verb, help=helps[module][verb])
    return p


def out_of_memory(exc: MemoryError) -> str:
    """One paragraph for a ``MemoryError`` that no estimate caught: what could not be
    allocated, the limit, and what to do."""
    from rlaccel.util.memory import available_bytes, size_text
    import resource
    what = str(exc).strip()
    what = f" ({what[0].lower()}{what[1:]})" if what else ""
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    limit = (f"the address-space limit of {size_text(soft)} (ulimit -v)"
             if soft != resource.RLIM_INFINITY else
             f"the {size_text(available_bytes() or 0)} of memory left")
    return (f"out of memory{what}: the command needs more than {limit}; make the sizes "
            f"it was given smaller (network widths, buffers, batches, transactions, sweep "
            f"axes) or allow it more memory")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RlaccelError as exc:
        print(f"rlaccel {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except MemoryError as exc:
        print(f"rlaccel {args.command}: error: {out_of_memory(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("rlaccel: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

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


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise RlaccelError(f"cannot write {path}: {exc.strerror}") from None


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

    i = sub.add_parser("isa", help="print the instruction set reference",
                       description="Print the ISA, generated from the table, for an "
                                   "architecture.")
    i.add_argument("--markdown", action="store_true", help="full Markdown reference")
    i.add_argument("--arch", metavar="NAME", default="adhdp",
                   help="architecture name or .toml path (default: adhdp)")
    i.set_defaults(func=cmd_isa)
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

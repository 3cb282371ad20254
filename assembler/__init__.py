"""rlaccel assembler: Lark grammar, two passes through the ISA table, .rlb binaries."""

__version__ = "0.1.0"

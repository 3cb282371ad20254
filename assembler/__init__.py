"""rlaccel assembler: Lark grammar, two passes through the ISA table, .rlb binaries."""

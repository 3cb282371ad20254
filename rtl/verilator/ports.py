"""A converted block's ports, read from its Verilog, and where each sits in the buffers the
Python side and the compiled model exchange.

MyHDL writes every port of a module as one declaration line (``input [2:0] op;``,
``output signed [23:0] y;``); :func:`verilog_ports` reads them in order. Each port takes
``ceil(width / 64)`` 64-bit slots of the input or the output buffer (:class:`Layout`), the
least significant word first, so a 96-bit bus of four 24-bit lanes is two slots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rlaccel.rtl.errors import RtlError

__all__ = ["Port", "Layout", "verilog_ports", "CLOCK"]

#: the clock input every clocked block has (MyHDL's name for it in every block)
CLOCK = "clk"

_DECL = re.compile(r"^(input|output|inout)\s+(signed\s+)?(?:\[(\d+):(\d+)\]\s+)?(\w+);",
                   re.MULTILINE)


@dataclass(frozen=True)
class Port:
    """One port: its Verilog name, direction, width, signedness and first buffer slot."""

    name: str
    output: bool
    width: int
    signed: bool
    slot: int = 0

    @property
    def words(self) -> int:
        """64-bit slots the port takes."""
        return -(-self.width // 64)


def verilog_ports(vfile: Path | str, top: str) -> list[Port]:
    """The ports of the MyHDL-converted module ``top`` in ``vfile``, in declaration order
    (slots not yet assigned)."""
    text = Path(vfile).read_text()
    if not re.search(rf"^module {re.escape(top)}\b", text, re.MULTILINE):
        raise RtlError(f"{vfile}: no module '{top}'")
    ports = []
    for d, signed, hi, lo, name in _DECL.findall(text):
        if d == "inout":
            raise RtlError(f"{vfile}: port '{name}' is inout; the Verilator back end drives "
                           f"inputs and reads outputs only")
        width = int(hi) - int(lo) + 1 if hi else 1
        ports.append(Port(name, d == "output", width, bool(signed)))
    if not ports:
        raise RtlError(f"{vfile}: module '{top}' declares no ports")
    return ports


class Layout:
    """The ports with their slots: inputs in the input buffer, outputs in the output buffer,
    each in the order of their names (MyHDL's declaration order changes from one conversion
    to the next). The clock is not in a buffer: the model's edge function sets it."""

    def __init__(self, ports: list[Port]):
        self.inputs: list[Port] = []
        self.outputs: list[Port] = []
        self.clocked = any(p.name == CLOCK and not p.output for p in ports)
        slot_in = slot_out = 0
        for p in sorted(ports, key=lambda p: p.name):
            if p.name == CLOCK and not p.output:
                continue
            if p.output:
                self.outputs.append(Port(p.name, True, p.width, p.signed, slot_out))
                slot_out += p.words
            else:
                self.inputs.append(Port(p.name, False, p.width, p.signed, slot_in))
                slot_in += p.words
        self.in_words = max(slot_in, 1)
        self.out_words = max(slot_out, 1)
        self.by_name = {p.name: p for p in (*self.inputs, *self.outputs)}

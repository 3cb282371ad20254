"""Every RTL block by name, as the machines declare them.

A machine names its blocks in its descriptor (``MACHINE.blocks``: block -> its test bench
class) and the blocks ``rlaccel run --rtl`` can put under its TLM (``MACHINE.rtl_run``: block
-> the transactor class). The names are known without importing MyHDL; a block's bench or
transactor is built when first asked for.
"""

from __future__ import annotations

from rlaccel.isa.machine import Machine, machines
from rlaccel.rtl.errors import RtlError

__all__ = ["block_names", "run_block_names", "machine_of", "bench", "transactor"]

_BENCHES: dict = {}


def _blocks() -> dict[str, tuple[Machine, str]]:
    out: dict[str, tuple[Machine, str]] = {}
    for m in machines().values():
        for name, ref in m.blocks.items():
            if name in out:
                raise RtlError(f"{m.path}: RTL block '{name}' is already "
                               f"{out[name][0].name}'s")
            out[name] = (m, ref)
    return out


def block_names() -> tuple[str, ...]:
    """Every block, machine by machine in the order each declares them."""
    return tuple(_blocks())


def run_block_names() -> dict[str, str]:
    """The blocks ``rlaccel run --rtl`` takes -> their machine's name."""
    return {name: m.name for m in machines().values() for name in m.rtl_run}


def machine_of(block: str) -> Machine:
    """The machine a block belongs to; an RtlError names the known blocks."""
    blocks = _blocks()
    if block not in blocks:
        raise RtlError(f"unknown block '{block}': blocks are {', '.join(blocks)}")
    return blocks[block][0]


def bench(block: str):
    """The block's test bench (:class:`rlaccel.rtl.bench.Bench`), built once."""
    if block not in _BENCHES:
        m = machine_of(block)
        b = m.resolve(m.blocks[block])()
        if b.name != block:
            raise RtlError(f"{m.qualified(m.blocks[block])}: its bench is named '{b.name}', "
                           f"not '{block}'")
        _BENCHES[block] = b
    return _BENCHES[block]


def transactor(block: str):
    """A new transactor of a block for ``rlaccel run --rtl``."""
    for m in machines().values():
        if block in m.rtl_run:
            return m.resolve(m.rtl_run[block])()
    raise RtlError(f"block '{block}' cannot run under the TLM (those that can: "
                   f"{', '.join(run_block_names())})")

"""What every machine's RTL parameters share: each is derived from an architecture once
(:func:`per_arch`), and each word format is seen the same way (:class:`FixedWords`,
:class:`FloatWords`).

A machine's ``machines/<name>/rtl/params.py`` holds one frozen dataclass of the widths and
constants its blocks are built for and the function that derives them from an architecture
file and the machine's TLM unit models; nothing there restates a number.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.isa.machine import machine as machine_named
from rlaccel.rtl.errors import RtlError

__all__ = ["per_arch", "check_machine", "FixedWords", "FloatWords"]


def check_machine(arch: Arch, machine: str) -> None:
    """A machine's blocks are built from an architecture of that machine: one that implements
    the ISA family it defines (any architecture for a machine that defines none). Another
    machine's architecture lacks the tables and knobs the blocks read: an RtlError says so,
    never a KeyError deep in a parameter maker."""
    family = machine_named(machine).family
    if family is not None and family not in arch.knobs.families:
        raise RtlError(f"{arch.path or arch.name}: {machine}'s RTL blocks are built from an "
                       f"architecture that implements the ISA family '{family}' ({machine}'s "
                       f"architectures do); '{arch.name}' implements "
                       f"{', '.join(arch.knobs.families)}")


def per_arch(machine: str) -> Callable:
    """Decorate ``build(arch: Arch, ...)`` into ``params(arch=machine, ...)``: ``arch`` an
    :class:`Arch` or a name or path to load (by default the machine's own architecture, named
    after it), checked to be one of the machine's (:func:`check_machine`), the result built
    once per architecture file (and other arguments) and then shared."""
    def wrap(build: Callable) -> Callable:
        sig = inspect.signature(build)
        cache: dict = {}

        @functools.wraps(build)
        def params(arch: Arch | str = machine, *args, **kwargs):
            a = load_arch(arch) if isinstance(arch, str) else arch
            check_machine(a, machine)
            bound = sig.bind(a, *args, **kwargs)
            bound.apply_defaults()
            key = (a.path or a.name, *list(bound.arguments.values())[1:])
            if key not in cache:
                cache[key] = build(*bound.args, **bound.kwargs)
            return cache[key]

        return params
    return wrap


def _format_field(field: str, fmt: str) -> property:
    return property(lambda self: getattr(getattr(self, fmt), field),
                    doc=f"``{fmt}.{field}``")


class FixedWords:
    """The word of a fixed-point format ``dt`` (an ``isa.dtypes`` ``FixedType``), for the
    parameters of blocks that compute in it."""

    word_bits = _format_field("bits", "dt")
    frac_bits = _format_field("frac_bits", "dt")
    min_raw = _format_field("min_raw", "dt")
    max_raw = _format_field("max_raw", "dt")


class FloatWords:
    """The word of an IEEE format ``fmt`` (:class:`rtl.fpu.FloatFormat`), for the parameters
    of blocks that compute in it."""

    word_bits = _format_field("bits", "fmt")

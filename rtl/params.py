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

__all__ = ["per_arch", "FixedWords", "FloatWords"]


def per_arch(default: str) -> Callable:
    """Decorate ``build(arch: Arch, ...)`` into ``params(arch=default, ...)``: ``arch`` an
    :class:`Arch` or a name or path to load, the result built once per architecture file
    (and other arguments) and then shared."""
    def wrap(build: Callable) -> Callable:
        sig = inspect.signature(build)
        cache: dict = {}

        @functools.wraps(build)
        def params(arch: Arch | str = default, *args, **kwargs):
            a = load_arch(arch) if isinstance(arch, str) else arch
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

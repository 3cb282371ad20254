"""Argument types for the command line: bounded integers, seeds and file names.

Each is an ``argparse`` ``type=``: a bad value is a usage error (exit status 2, with the
verb's usage line) that says what the argument must be, e.g. ``argument --n: must be an
integer from 1 to 1,000,000, not '0'``.
"""

from __future__ import annotations

import argparse
from typing import Callable

__all__ = ["int_in", "seed", "file_name", "SEED_MAX"]

#: seeds are signed 64-bit integers that are not negative (they become program constants,
#: which are signed 64-bit)
SEED_MAX = (1 << 63) - 1


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An integer from ``lo`` to ``hi`` (written in decimal, or 0x.. / 0b..)."""
    def convert(text: str) -> int:
        try:
            v = int(text, 0) if len(text) < 40 else None
        except ValueError:
            v = None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"must be an integer from {lo:,} to {hi:,}, "
                                             f"not {text!r}")
        return v
    convert.__name__ = "integer"
    return convert


seed = int_in(0, SEED_MAX)


def file_name(text: str) -> str:
    """A file name: not empty."""
    if not text:
        raise argparse.ArgumentTypeError("the file name is empty")
    if "\x00" in text:
        raise argparse.ArgumentTypeError("a file name cannot contain a NUL character")
    return text

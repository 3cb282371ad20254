"""MyHDL blocks that cut a bus into its words and join words into a bus, in the layout of
:func:`rtl.signals.pack`: word ``k`` of ``B`` bits in bits ``[k B + B - 1 : k B]``.

A block that takes a bus of lanes (a beat, a tile, a row of registers) wires one
:func:`bus_word` per lane, and a block that hands its lanes' words out as one port wires one
:func:`bus_join`.
"""

from __future__ import annotations

from myhdl import ConcatSignal, always_comb, block

__all__ = ["bus_word", "bus_join"]


@block
def bus_word(bus, y, *, k: int):
    """Word ``k`` of ``bus``, as wide as ``y``: a bit for a ``bool`` signal, a two's-complement
    word for a signed one, the plain bits otherwise.

    bus -- in, the words side by side
    y -- out, the word
    """
    lo, hi = len(y) * k, len(y) * (k + 1)
    if y.min is None:

        @always_comb
        def pick_bit():
            y.next = bus[k]

        return pick_bit
    if y.min < 0:

        @always_comb
        def pick_signed():
            y.next = bus[hi:lo].signed()

        return pick_signed

    @always_comb
    def pick():
        y.next = bus[hi:lo]

    return pick


@block
def bus_join(words, bus):
    """``words`` (signals of one width, signed or not) side by side in ``bus``, word ``c`` in
    bits ``[c B + B - 1 : c B]``.

    words -- in, the words
    bus -- out, their bits
    """
    if len(words) == 1:
        word, B = words[0], len(words[0])
        if word.min is not None and word.min < 0:

            @always_comb
            def drive_bits():
                bus.next = word[B:]

            return drive_bits

        @always_comb
        def drive_one():
            bus.next = word

        return drive_one
    cat = ConcatSignal(*reversed(words))

    @always_comb
    def drive():
        bus.next = cat

    return drive

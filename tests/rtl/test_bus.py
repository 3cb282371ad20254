"""rtl/bus.py: bus_word cuts word k out of a bus laid out as rtl.signals.pack lays words
(signed, unsigned or a bit, as wide as its output), bus_join puts words back side by side
(one word alone included), and both convert to Verilog."""

import numpy as np
import pytest
from myhdl import StopSimulation, block, delay, instance

from rlaccel.rtl.bus import bus_join, bus_word
from rlaccel.rtl.signals import pack, sig_signed, sig_unsigned, unpack


@block
def _split_join(bus, words, back):
    """The bus cut into its words and joined again."""
    return [bus_word(bus, w, k=k) for k, w in enumerate(words)], bus_join(words, back)


@block
def _top(bus, back, *, n: int, signed: bool):
    """:func:`_split_join` with its words inside (a top block's ports are signals)."""
    make = sig_signed if signed else sig_unsigned
    return _split_join(bus, [make(len(bus) // n) for _ in range(n)], back)


def _run(n: int, bits: int, signed: bool, seed: int) -> list[tuple]:
    """Random buses through split and join: (bus, the words read, the joined bits)."""
    make = sig_signed if signed else sig_unsigned
    bus, back = sig_unsigned(n * bits), sig_unsigned(n * bits)
    words = [make(bits) for _ in range(n)]
    values = np.random.default_rng(seed).integers(0, 1 << (n * bits), 50).tolist()
    seen = []

    @block
    def tb():
        dut = _split_join(bus, words, back)

        @instance
        def drive():
            for v in values:
                bus.next = v
                yield delay(1)
                seen.append((v, [int(w.val) for w in words], int(back.val)))
            raise StopSimulation

        return dut, drive

    tb().run_sim(quiet=1)
    return seen


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("signed", [False, True])
def test_words_are_packs_layout_and_join_gives_the_bus_back(n, signed):
    for v, got, back in _run(n, 5, signed, seed=n):
        assert got == unpack(v, 5, n, signed=signed)
        assert back == v == pack(got, 5)


def test_a_bit_of_a_bus():
    bus = sig_unsigned(4)
    bits = [sig_unsigned(0) for _ in range(4)]
    seen = []

    @block
    def tb():
        picks = [bus_word(bus, b, k=k) for k, b in enumerate(bits)]

        @instance
        def drive():
            for v in range(16):
                bus.next = v
                yield delay(1)
                seen.append([bool(b.val) for b in bits])
            raise StopSimulation

        return picks, drive

    tb().run_sim(quiet=1)
    assert seen == [[bool(v >> k & 1) for k in range(4)] for v in range(16)]


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("signed", [False, True])
def test_converts_to_verilog(tmp_path, n, signed):
    inst = _top(sig_unsigned(n * 5), sig_unsigned(n * 5), n=n, signed=signed)
    inst.convert(hdl="Verilog", path=str(tmp_path), name="split_join")
    text = (tmp_path / "split_join.v").read_text()
    assert "module split_join" in text and text.count("assign") >= n + 1

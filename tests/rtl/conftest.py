"""What the RTL tests of the layer and of every machine share (the ``hdl_tools`` fixture is in
``tests/conftest.py``, so that the machines' RTL tests see it too)."""

import functools
from pathlib import Path

import numpy


def assert_clean(result):
    """A bench result with transactions and no mismatches (printing the first ones)."""
    assert result.transactions > 0
    assert result.mismatch_count == 0, "\n".join(str(m) for m in result.mismatches)


def vcd_signals(path) -> tuple[int, dict[str, str]]:
    """A VCD file's time unit in femtoseconds and its variables ``{name: id}`` (the first
    of each name, as in the block's own scope)."""
    text = open(path).read()
    head = text[:text.index("$enddefinitions")]
    scale = head.split("$timescale")[1].split("$end")[0].strip()
    number = scale.rstrip("fpnums ")
    unit = scale[len(number):].strip()
    fs = int(number or 1) * {"fs": 1, "ps": 10**3, "ns": 10**6, "us": 10**9}[unit]
    names = {}
    for line in head.splitlines():
        parts = line.split()
        if parts[:1] == ["$var"]:
            names.setdefault(parts[4], parts[3])
    return fs, names


def vcd_rises(path, name: str = "clk") -> list[int]:
    """The times (femtoseconds) the 1-bit VCD variable ``name`` rose to 1."""
    fs, names = vcd_signals(path)
    code = names[name]
    times, t = [], 0
    body = open(path).read().split("$enddefinitions", 1)[1]
    for line in body.splitlines():
        if line.startswith("#"):
            t = int(line[1:])
        elif line == "1" + code:
            times.append(t * fs)
    return times


#: transactions a block runs per test on the Verilog back ends (60 where not named): enough
#: to cover its opcodes, few enough to be quick; the decoder's 125 words of seed 5 hold all
#: 33 mnemonics and illegal words (test_cosim.py checks)
N = {"datapath": 12, "decoder": 125, "darl_butterfly": 4, "fixar_array": 4,
     "maddpg_ring": 6, "maddpg_cu": 8, "lg_vpu": 20, "darl_encoder": 20}
#: the seed of those runs
SEED = 5
#: the architecture a block runs on in those tests, where not its machine's: darl.toml's
#: 256-word links and q16.16 codebook (two 16,384-word ROMs) take Verilator minutes to
#: compile; DARL in q8.8 with 16-word links keeps every path of both blocks. FIXAR's
#: 16 x 16 array (fixar.toml) takes Verilator over a minute and MyHDL's conversion seconds;
#: the 4 x 4 array of fixar-4x4.toml is the same generator of PEs, column trees and
#: accumulators, its layers spanning several tiles each way; the 16 x 16 one runs in MyHDL
#: and in Icarus in tests/machines/fixar/rtl/test_array.py
_DARL = str(Path(__file__).parent / "archs" / "darl-fixed16.toml")
_FIXAR = str(Path(__file__).parents[2] / "machines" / "fixar" / "archs" / "fixar-4x4.toml")
ARCH = {"darl_butterfly": _DARL, "darl_encoder": _DARL, "fixar_array": _FIXAR}


@functools.cache
def myhdl_run(block: str):
    """The MyHDL block's run of ``N`` transactions of seed ``SEED`` (once a session): what
    the other back ends are compared with."""
    from rlaccel.rtl.cosim import run
    r = run(block, n=N.get(block, 60), seed=SEED, arch=ARCH.get(block))
    assert_clean(r)
    return r


def wrong_first(block: str, n: int, seed: int):
    """``n`` of ``block``'s transactions with the first one's first expected value off by
    one."""
    from rlaccel.rtl.blocks import bench
    b = bench(block)
    txns = list(b.transactions(numpy.random.default_rng(seed), n, b.params()))
    key, value = next(iter(txns[0].expected.items()))
    txns[0].expected[key] = (not value) if isinstance(value, bool) else value + 1
    return txns, key


def period_fs(block: str) -> int:
    """``block``'s clock period at its machine's architecture, femtoseconds."""
    from rlaccel.rtl.blocks import bench
    from rlaccel.rtl.clock import half_period_ps
    return 2 * half_period_ps(bench(block).params()) * 1000


def block_ports(block: str) -> set[str]:
    """The Verilog port names of ``block``."""
    from rlaccel.rtl.blocks import bench
    from rlaccel.rtl.signals import flat_ports
    b = bench(block)
    return set(flat_ports(b.ports(b.params()))) | {"clk", "rst"}


def assert_vcd_clocked(vcd, block: str, cycles: int) -> None:
    """``vcd`` holds ``block``'s ports and its clock rising ``cycles`` times or more, a
    period of its architecture's apart."""
    _, names = vcd_signals(vcd)
    assert block_ports(block) <= set(names)
    rises = vcd_rises(vcd)
    assert len(rises) >= cycles
    assert {b - a for a, b in zip(rises, rises[1:])} == {period_fs(block)}

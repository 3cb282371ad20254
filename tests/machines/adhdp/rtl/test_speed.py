"""rtl._speed: its bin is MyHDL's bin; its call-info helpers give the records MyHDL's own
give (names, block context, namespaces); its syntax trees are MyHDL's; a block converts to
the same Verilog with MyHDL's helpers and with these."""

import ast
import random

import myhdl
import myhdl._bin
import pytest
from myhdl import Signal, always, always_comb, always_seq, block, instance, intbv

from rlaccel.rtl import _speed
from rlaccel.rtl.verilator.build import canonical


def test_bin_equals_myhdl():
    rng = random.Random(1)
    values = list(range(-3000, 3000)) + [rng.randint(-2**80, 2**80) for _ in range(5000)]
    for v in values:
        for width in (0, 1, 7, 90):
            assert _speed.bin(v, width) == myhdl._bin.bin(v, width), (v, width)


@pytest.fixture
def use():
    """rtl._speed.use, with rtl._speed's helpers put back after the test."""
    yield _speed.use
    _speed.install()


SCALE = 3                                   # a module-level name in every namespace


@block
def _reg(clk, rst, a, y):
    @always_seq(clk.posedge, reset=rst)
    def seq():
        y.next = a

    return seq


@block
def _chain(clk, rst, a, y, n):
    mid = [Signal(intbv(0)[8:]) for _ in range(n)]
    first = _reg(clk, rst, a, mid[0])
    rest = [_reg(clk, rst, mid[k - 1], mid[k]) for k in range(1, n)]   # a list comprehension
    seen = Signal(intbv(0)[8:])

    @always_comb
    def comb():
        y.next = mid[n - 1]

    @always(clk.negedge)
    def neg():
        seen.next = mid[0] * SCALE

    @instance
    def watch():
        while True:
            yield clk.posedge

    return first, rest, comb, neg, watch


def _records(top) -> list:
    """Every block and generator of the hierarchy by position: the kind, the defining
    function's name, whether a block made it, and its namespace's names and kinds."""
    out = []

    def walk(node, path):
        ci = node.callinfo
        out.append((path, type(node).__name__, ci.name, ci.modctxt,
                    {k: type(v).__name__ for k, v in ci.symdict.items()}))
        for k, sub in enumerate(getattr(node, "subs", ())):
            walk(sub, (*path, k))

    walk(top, ())
    return out


def _chain_records():
    clk, a, y = Signal(bool(0)), Signal(intbv(0)[8:]), Signal(intbv(0)[8:])
    rst = myhdl.ResetSignal(0, active=1, isasync=False)
    return _records(_chain(clk, rst, a, y, 4))


def test_call_info_equals_myhdls(use):
    use(_speed.FAST)
    fast = _chain_records()
    # the top made from Python, the sub-blocks (a list comprehension's too) and generators
    # each recorded with the function that defines them, in a block's context
    assert [r[:4] for r in fast] == [
        ((), "_Block", "_chain_records", False),
        *[x for k in range(4) for x in (((k,), "_Block", "_chain", True),
                                        ((k, 0), "_AlwaysSeq", "_reg", True))],
        ((4,), "_AlwaysComb", "_chain", True), ((5,), "_Always", "_chain", True),
        ((6,), "_Instantiator", "_chain", True)]
    assert {"SCALE", "mid", "seen", "n"} <= set(fast[-1][4])
    use(_speed.MYHDL)
    assert _chain_records() == fast


def test_syntax_trees_equal_myhdls():
    """Each tree a new one (MyHDL edits them), equal to MyHDL's, line numbers and all."""
    clk, a, y = Signal(bool(0)), Signal(intbv(0)[8:]), Signal(intbv(0)[8:])
    rst = myhdl.ResetSignal(0, active=1, isasync=False)
    gens = [g.genfunc for g in _chain(clk, rst, a, y, 2).subs[-3:]]
    for f in [*gens, _records, _speed.make_ast, _chain.func]:
        want = _speed.MYHDL["ast"](f)
        for _ in range(2):
            got = _speed.make_ast(f)
            assert ast.dump(got, include_attributes=True) == \
                ast.dump(want, include_attributes=True)
            assert (got.sourcefile, got.lineoffset) == (want.sourcefile, want.lineoffset)
            got.body.clear()
    assert _speed.make_ast(_records) is not _speed.make_ast(_records)


def test_the_verilog_equals_myhdls(use, monkeypatch, tmp_path):
    """FIXAR's array (2 x 3, a hierarchy of PEs and bus words) converts to the same Verilog."""
    from rlaccel.rtl.blocks import bench
    from rlaccel.rtl.hdl import convert

    def verilog(helpers, where):
        use(helpers)
        # the names MyHDL has given out so far, which it makes each new name differ from,
        # and each block's count of instances (which MyHDL's conversion zeroes too)
        monkeypatch.setattr(myhdl._block, "_inst_name_set", set())
        monkeypatch.setattr(myhdl._block, "_name_set", set())
        for b in myhdl._simulator._blocks:
            b.calls = 0
        b = bench("fixar_array")
        prm = b.params(str(arch))
        clk, rst = Signal(bool(0)), myhdl.ResetSignal(1, active=1, isasync=False)
        return canonical(convert(b.block(clk, rst, **b.ports(prm), prm=prm), "fixar_array",
                                 tmp_path / where).read_text())

    arch = tmp_path / "fixar-2x3.toml"
    arch.write_text('inherit = "fixar"\nname = "fixar-2x3"\n[timing]\npe_rows = 2\npe_cols = 3\n')
    assert verilog(_speed.MYHDL, "myhdl") == verilog(_speed.FAST, "fast")

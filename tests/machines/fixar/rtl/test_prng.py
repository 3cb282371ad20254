"""FIXAR's PRNG (machines/fixar/rtl/prng.py) against NoiseGenerator: the same q16.16 samples, lane by
lane and request after request of one stream, in the family's unit_cycles; in MyHDL and in
Icarus; Verilator-clean."""

from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint
from rlaccel.machines.fixar.tlm import prng

from tests.rtl.conftest import assert_clean


def test_requests_myhdl():
    r = run("fixar_prng", n=120, seed=91)
    assert_clean(r)


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("fixar_prng", n=60, seed=92, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "fixar_prng.v", "fixar_prng") == []


def test_a_wrong_generator_is_caught(monkeypatch):
    """Another xorshift triple in the model fails the bench."""
    def step(self):
        x = self.regs
        x ^= x << prng.np.uint32(13)
        x ^= x >> prng.np.uint32(7)
        x ^= x << prng.np.uint32(17)
        self.cycles += 1
        h = (x >> prng.np.uint32(16)).astype(prng.np.int64) + \
            (x & prng.np.uint32(0xFFFF)).astype(prng.np.int64)
        return h.sum(axis=1) - prng.np.int64(prng._OFFSET)

    monkeypatch.setattr(prng.NoiseGenerator, "_cycle", step)
    r = run("fixar_prng", n=10, seed=93)
    assert r.mismatch_count == 10

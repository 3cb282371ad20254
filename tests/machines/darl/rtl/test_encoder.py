"""DARL's codebook encoder (machines/darl/rtl/encoder.py) against Encoder.encode: cos and sin of every
element bit for bit, E's saturation, and the pipeline's cycles equal iteration_cycles'
encode part; in MyHDL and in Icarus. (Its Verilator lint takes about a minute, the 16,384-word
quarter-wave ROM: it is in docs/rtl.md, not in CI.)"""

from rlaccel.rtl.cosim import run
from rlaccel.machines.darl.rtl.encoder import encoder_latency
from rlaccel.machines.darl.rtl.params import darl_params
from rlaccel.machines.darl.tlm.timing import Workload, iteration_cycles

from tests.rtl.conftest import assert_clean


def test_elements_myhdl():
    r = run("darl_encoder", n=1500, seed=51)
    assert_clean(r)
    assert r.extra["coverage"]["element saturates"] > 10


def test_verilog_agrees_in_icarus(hdl_tools, tmp_path):
    assert_clean(run("darl_encoder", n=300, seed=52, backend="icarus", workdir=tmp_path))


def test_pipeline_is_the_timing_models_encode_part():
    prm = darl_params()
    assert encoder_latency(prm) == iteration_cycles(Workload(n=prm.features),
                                                    prm.latency)["encode"]


def test_a_wrong_codebook_is_caught(monkeypatch):
    from rlaccel.machines.darl.tlm import codebook
    real = codebook.Codebook.cos
    monkeypatch.setattr(codebook.Codebook, "cos", lambda self, e: real(self, e + 1))
    r = run("darl_encoder", n=200, seed=53)
    assert r.mismatch_count > 0 and "expected re=" in str(r.mismatches[0])

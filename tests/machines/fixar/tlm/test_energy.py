"""The ddpg family's energy prices follow the architecture's number formats: a narrower
weight word makes the PE's multipliers and the weight memory's reads cheaper, through the
cost model (tlm/cost) and nothing else."""

from rlaccel.isa.arch import load_arch
from rlaccel.tlm.cost import CostModel
from rlaccel.machines.fixar.tlm.energy import prices


def _prices(tmp_path, table=""):
    if not table:
        return prices(CostModel(load_arch("fixar")))
    p = tmp_path / "a.toml"
    p.write_text(f'inherit = "fixar"\n[fixar]\n{table}\n')
    return prices(CostModel(load_arch(str(p))))


def test_weight_width_prices_the_macs_and_updates(tmp_path):
    base = _prices(tmp_path)
    narrow = _prices(tmp_path, 'weights = "fixed16"')
    for action in ("pe_mac32", "pe_mac16", "soft_word", "adam_word"):
        assert narrow[action].pj < base[action].pj, action
    assert "16x16 multiplies" in narrow["pe_mac32"].how
    assert "32x16 multiplies" in base["pe_mac32"].how
    # the binary point alone does not change a price: q4.28 and q16.16 are both 32-bit words
    same = _prices(tmp_path, 'weights = "fixed32"')
    assert {k: v.pj for k, v in same.items()} == {k: v.pj for k, v in base.items()}


def test_gradient_width_prices_the_adam_read(tmp_path):
    base = _prices(tmp_path)
    narrow = _prices(tmp_path, 'gradients = "q8.16"')
    assert narrow["adam_word"].pj < base["adam_word"].pj
    assert narrow["pe_mac32"].pj == base["pe_mac32"].pj

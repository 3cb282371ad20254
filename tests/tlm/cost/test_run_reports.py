"""What every run's JSON says about its costs, read from the golden records of every machine
(tests/golden/): an energy_model with no fitted constant and a source for every price, and on
the four FPGA machines the resources (LUT, FF, DSP, BRAM, device)."""

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parents[2] / "golden"
RECORDS = sorted(GOLDEN.glob("*.json"))
FPGA = ("fixar", "learninggroup", "darl", "maddpg")


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_energy_model_has_sources_and_nothing_fitted(path):
    r = json.loads(path.read_text())
    model = r["energy_model"]
    assert model["fitted"] == []
    assert set(model["prices_pj"]) <= set(model["sources"]) | {"clock"}
    assert all(len(s.split()) >= 3 for s in model["sources"].values())


@pytest.mark.parametrize("path", [p for p in RECORDS if p.stem.split("_")[0] in FPGA],
                         ids=lambda p: p.stem)
def test_fpga_runs_carry_their_resources(path):
    res = json.loads(path.read_text())["resources"]
    assert {"lut", "ff", "dsp", "bram", "device"} <= set(res)
    assert res["device"] in ("u50", "u200", "u280") and res["lut"] > 0

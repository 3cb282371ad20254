"""Table 2's power figures (the DARL paper's) are the comparison, never the model: the watts they
imply, and a model's watts set beside them with the error."""

import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm.power import compare, paper_watts


def test_the_watts_table_2_implies():
    assert paper_watts(1) == pytest.approx(36597.1 / 5256.3)        # 6.96 W
    assert paper_watts(8) == pytest.approx(187972.9 / 11053.7)      # 17.01 W
    assert paper_watts(8) < 20.0                                    # "less than 20 W"
    assert paper_watts(2) is None                                   # no row for two agents


def test_a_model_beside_the_table():
    c = compare(5.0, 1)
    assert c["paper_watts"] == pytest.approx(6.9625, abs=1e-3)
    assert c["error"] == pytest.approx(5.0 / (36597.1 / 5256.3) - 1)
    assert compare(5.0, 4)["error"] is None


def test_errors():
    with pytest.raises(ArchError, match="agents must be a positive integer"):
        paper_watts(0)

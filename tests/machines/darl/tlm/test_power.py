"""The power model through Table 2's two points (seed 004): it returns the watts the table
implies, and energy per iteration is power times time."""

import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm.power import TABLE2_POWER, PowerModel


def test_the_line_passes_through_table_2():
    assert TABLE2_POWER.watts(1) == pytest.approx(36597.1 / 5256.3)        # 6.96 W
    assert TABLE2_POWER.watts(8) == pytest.approx(187972.9 / 11053.7)      # 17.01 W
    assert TABLE2_POWER.per_agent_w == pytest.approx((17.0055 - 6.9625) / 7, abs=1e-3)
    assert TABLE2_POWER.ips_per_watt(36597.1, 1) == pytest.approx(5256.3)
    assert TABLE2_POWER.watts(8) < 20.0                                    # "less than 20 W"


def test_energy_of_an_iteration():
    m = PowerModel(5.0, 1.0)
    assert m.iteration_joules(417, 171.0, 1) == pytest.approx(6.0 * 417 / 171e6)


def test_errors():
    with pytest.raises(ArchError, match="agents must be a positive integer"):
        TABLE2_POWER.watts(0)
    with pytest.raises(ArchError, match="two points define the line, not 1"):
        PowerModel.through({1: (1.0, 1.0)})

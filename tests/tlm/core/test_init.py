"""tlm.core: the public surface is the table in the package docstring, and only that."""

from __future__ import annotations

import re

from rlaccel.tlm import core as tlm_core


def test_all_equals_the_documented_table():
    """__all__ lists exactly the names of the docstring's table, and each exists."""
    documented = re.findall(r"^``(\w+)``", tlm_core.__doc__, flags=re.MULTILINE)
    assert sorted(documented) == sorted(tlm_core.__all__)
    assert len(set(tlm_core.__all__)) == len(tlm_core.__all__)
    for name in tlm_core.__all__:
        assert getattr(tlm_core, name) is not None

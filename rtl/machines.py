"""The new machines' RTL blocks (issue 15), registered beside the ADHDP datapath's.

:data:`MACHINE_BLOCKS` names them for the command line without importing MyHDL;
:func:`machine_benches` builds their benches (:mod:`rtl.registry` adds them).
"""

from __future__ import annotations

__all__ = ["MACHINE_BLOCKS", "machine_benches"]

#: block names, as `rlaccel cosim BLOCK` and `rlaccel rtl verilog|lint|synth BLOCK` take them
MACHINE_BLOCKS = ("lg_vpu", "lg_osel", "darl_butterfly", "darl_encoder",
                  "maddpg_cu", "maddpg_ring", "fixar_pe",
                  "fixar_prng", "fixar_array")


def machine_benches() -> list:
    """Every new machine's bench, in :data:`MACHINE_BLOCKS` order."""
    from rlaccel.rtl.darl.benches import BENCHES as DARL
    from rlaccel.rtl.learninggroup.benches import BENCHES as LG
    from rlaccel.rtl.fixar.benches import BENCHES as FIXAR
    from rlaccel.rtl.maddpg.benches import BENCHES as MADDPG
    benches = [*LG, *DARL, *MADDPG, *FIXAR]
    assert tuple(b.name for b in benches) == MACHINE_BLOCKS
    return benches

"""Every block's bench by name: the ADHDP datapath's (:mod:`rtl.benches`) and the new
machines' (:mod:`rtl.machines`). ``rlaccel cosim`` and ``rlaccel rtl`` look blocks up here."""

from __future__ import annotations

from rlaccel.rtl.benches import BENCHES as ADHDP_BENCHES
from rlaccel.rtl.machines import machine_benches

__all__ = ["BENCHES"]

BENCHES = {**ADHDP_BENCHES, **{b.name: b for b in machine_benches()}}

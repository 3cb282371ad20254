"""Energy actions of the hdc family beyond the base family's (whose actions DARL's
instructions count for everything else: ``models._actions``).

``encode_mac``: a multiply-add of the encoder (eq. 1, ``E_j = sum_i s_i P_ij``). The encoder
builds its N exact 32 x 32 products on DSP slices (``rlaccel rtl synth darl_encoder --target
xilinx``: 16 DSP48, four a product), while the regression arrays and the update lanes build
theirs in LUTs (``machines/darl/rtl/lanes_synth.py``, synthesised without DSPs), which is what
the architecture's ``[technology] multipliers = "fabric"`` prices the base family's ``mac`` and
``mul`` as. So the encoder's multiply-adds are their own action, priced on DSP slices.
"""

from __future__ import annotations

from rlaccel.tlm.cost.primitives import Price

__all__ = ["ACTIONS", "prices"]

#: action -> the energy unit it belongs to
ACTIONS = {"encode_mac": "arithmetic"}


def prices(cost) -> dict[str, Price]:
    """The hdc family's actions at ``cost``'s architecture (module doc)."""
    mac = cost.mac(on="dsp")
    return {"encode_mac": mac.named(f"the encoder's multiply-add, its product on DSP slices "
                                    f"(rlaccel rtl synth darl_encoder: 16 DSP48): {mac.how}")}

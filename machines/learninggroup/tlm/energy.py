"""Prices of the sparse family's energy action, composed by the cost model
(:mod:`rlaccel.tlm.cost`) at the architecture's technology (the U280 of
``learninggroup.toml``).

``vpu_op`` -- one VPU operation (the LearningGroup paper, III-D: an FP16 multiplier and an FP16 adder per
VPU): a multiply and an accumulate of the data format and the weight word read from the
global parameter memory (a MAC's; an element operation of RMSprop or the grouping
gradient is priced the same, an upper estimate).
"""

from __future__ import annotations

__all__ = ["prices"]


def prices(cost) -> dict:
    k = cost.knobs
    weight, _ = cost.memory("synapse", k.synapse_words, "bram")
    op = (cost.mul() + cost.accumulate() + weight).named(
        f"multiply ({cost.mul().how}) + accumulate ({cost.accumulate().how}) + a weight read "
        f"({weight.how})")
    return {"vpu_op": op}

"""The compute unit (CU) of the MADDPG paper (section III-B, IV-A): one stage of a learner's training
pipeline, ``F`` parallel fp32 multiply-add elements working on one layer for one sample.

Timing and cost (eq. 4 and the text after it): a layer with input dimension ``ID`` and output
dimension ``OD`` takes ``ceil(ID * OD / F)`` cycles per sample (eq. 4 in whole cycles: the
``ID x OD`` multiply-adds of a pass through the ``F`` elements, the weight matrix partitioned
over ``F`` banks); the CU costs ``C_DSP = 5 F`` DSPs (a float multiplier and adder in Vitis
HLS) and ``C_SRAM = F`` SRAM banks.

Semantics (fp32, :mod:`rlaccel.isa.dtypes`; ``W`` is ``(OD, ID)`` row-major, one sample):

* FP: ``y = act(W x + b)``: each output's products summed in input order from +0, then the
  bias added (one rounding), then ReLU or nothing (the last layer);
* BP: ``d_prev = (W^T d) * relu'(x)`` -- the error of layer ``l`` back through ``W_l`` to the
  input of layer ``l`` (products summed in output order), masked by the derivative of the
  ReLU that produced ``x`` (``x > 0``; no mask for a network input);
* WU: ``G += d x^T`` and ``g_b += d`` (every product rounded, then added: a gradient
  accumulated sample by sample over the batch, applied once per batch by :mod:`.update`).

The results do not depend on ``F``: the elements share out the output neurons, and each
neuron's sum keeps its order. ``F`` sets only the time and the cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.util.numbers import is_whole

__all__ = ["ComputeUnit", "cu_cycles", "DSP_PER_MAC", "fp", "bp", "wu"]

#: DSPs of one fp32 multiply-add element in Vitis HLS (the MADDPG paper, section IV-A)
DSP_PER_MAC = 5

_F32 = get_dtype("fp32")


def cu_cycles(id_: int, od: int, f: int) -> int:
    """Cycles of one sample through an ``ID x OD`` layer on ``F`` elements (eq. 4)."""
    for name, v in (("ID", id_), ("OD", od), ("F", f)):
        if not is_whole(v, types=(int, np.integer)):
            raise ArchError(f"compute unit: {name} must be a positive integer, not {v!r}")
    return ceil(id_ * od / f)


@dataclass(frozen=True)
class ComputeUnit:
    """One CU: what it does (``kind``: ``"FP"``, ``"BP"``, ``"WU"`` or ``"LOSS"``), the layer
    shape it works on and its unroll factor ``f``."""

    kind: str
    id: int
    od: int
    f: int = 1

    @property
    def work(self) -> int:
        """Multiply-adds per sample, ``ID * OD``."""
        return self.id * self.od

    @property
    def cycles(self) -> int:
        """Cycles per sample (eq. 4)."""
        return cu_cycles(self.id, self.od, self.f)

    @property
    def dsp(self) -> int:
        """``C_DSP = 5 F``."""
        return DSP_PER_MAC * self.f

    @property
    def sram_banks(self) -> int:
        """``C_SRAM = F``."""
        return self.f


def fp(W, b, x, relu: bool, *, counter=None) -> np.ndarray:
    """Forward through one layer for one sample: ``act(W x + b)`` in fp32."""
    y = _F32.add(_F32.matvec(W, x, counter=counter), b, counter=counter)
    return _F32.activate("relu", y) if relu else y


def bp(W, d, x=None, *, counter=None) -> np.ndarray:
    """The error at the layer's input: ``(W^T d)``, masked by ``x > 0`` when ``x`` (the layer
    input, a ReLU output) is given."""
    g = _F32.rmatvec(W, d, counter=counter)
    return g if x is None else np.where(np.asarray(x) > 0, g, np.float32(0.0))


def wu(G, gb, d, x, *, counter=None) -> tuple[np.ndarray, np.ndarray]:
    """Accumulate one sample's weight gradient: ``G + d x^T`` and ``gb + d`` in fp32."""
    return (_F32.add(G, _F32.outer(d, x, counter=counter), counter=counter),
            _F32.add(gb, d, counter=counter))

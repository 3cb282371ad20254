"""Functional models of FIXAR's units (the FIXAR paper), for the ``ddpg`` ISA family.

Pure numpy on the number formats of :mod:`rlaccel.isa.dtypes`; nothing here knows about the
simulator, so the phase-B instruction models call these as their semantics and the RTL
benches use them as predictors (one functional semantics per unit). This package imports
only :mod:`rlaccel.isa` and numpy.

* :mod:`.pe` -- the configurable processing element (Fig. 5): one 32x32 product, built from
  two 32x16 multipliers, or two 32x16 products a cycle.
* :mod:`.kernels` -- the AAP cores' matrix products on raw fixed-point operands: every
  product exact, the sum exact, one round half up and one saturation per output (the
  accumulator and its cross-core reduction), batched, as fast as float64 BLAS allows.
* :mod:`.qat` -- Algorithm 1's activation quantiser and its min/max monitor.
* :mod:`.adam` -- the Adam unit local to the weight memory.
* :mod:`.soft_update` -- the soft target update.
* :mod:`.prng` -- the exploration-noise generator (xorshift32 lanes, a 12-term CLT
  Gaussian in q16.16).
* :mod:`.timing` -- cycle formulas of the AAP cores' dataflow (section V-B), the Adam unit and
  the soft update, and the accelerator's inferences per second.
* :mod:`.pcie` -- the host link's transfer cost (latency, bandwidth, per-call overhead).

* :mod:`.state` and :mod:`.models` -- the ``ddpg`` ISA family's instruction models on these
  units (``FAMILY``, loaded lazily so that the unit models stay importable on their own).

``machines/fixar/README.md`` is the machine's specification.
"""


def __getattr__(name):
    if name == "FAMILY":
        from rlaccel.machines.fixar.tlm.models import FAMILY
        return FAMILY
    raise AttributeError(name)

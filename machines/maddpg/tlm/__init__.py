"""Functional models of the MADDPG accelerator's units (the MADDPG paper), without the simulator.

In the machine's fp32 (:mod:`rlaccel.isa.dtypes`), with numpy and, where numba is there,
compiled loops of the same operations (:mod:`rlaccel.tlm.fast.jit`); they are the semantics the
``marl`` family's instruction models (``tlm/families/marl``, registered with the simulator)
call and the predictors RTL benches will use. This package holds what they compute and how
long it takes:

* :mod:`.compute_unit` -- a CU of F fp32 multiply-add elements: FP, BP, WU of one layer for
  one sample; ``T = ceil(ID OD / F)`` (eq. 4), ``C_DSP = 5 F``, ``C_SRAM = F``;
* :mod:`.kernels` -- the same arithmetic for a whole batch, compiled, bit for bit;
* :mod:`.stream` -- a CU working through a batch sample by sample in simulated time;
* :mod:`.softmax` -- the Gumbel-softmax head and its backward pass;
* :mod:`.loss` -- the value pipeline's LOSS stage (target, error);
* :mod:`.update` -- applying a batch's gradients (SGD, TF1 Adam) and the soft target update;
* :mod:`.pipeline` -- the stages of the value (5L) and policy (5L-1) pipelines (Fig. 4);
* :mod:`.timing` -- throughput (eq. 3), fill, batch time, the per-sample schedule;
* :mod:`.ring` -- the ring all-gather of the learners' actions: data and cycles, one vector or
  a batch's stream of them;
* :mod:`.device` and :mod:`.dse` -- SLR budgets (from an architecture's ``[device]``) and the
  design-space exploration (IV-B, eqs. 5-6).

``machines/maddpg/README.md`` is the specification these implement.
"""

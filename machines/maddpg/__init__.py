"""MADDPG on a CPU-FPGA platform: one learner pipeline per agent on a ring.

Its ISA family is ``marl`` (:mod:`.isa`; instruction and unit models in ``tlm/``).

The machine's side:

* ``learner.s``, ``layout.inc`` -- one learner's program (both training pipelines, the ring,
  the per-batch updates), assembled once per agent; ``*.toml`` -- the manifests;
* :mod:`.plugin` -- the run plug-in: manifest keys, the design-space exploration that
  sizes the compute units, one binary per agent, results (:mod:`.results`);
* :mod:`.host` -- the host driver: sample generation, the shared buffer, the learners'
  batches, initial weights and policies over the host link, by symbol;
* :mod:`.dse` -- ``rlaccel dse maddpg``; :mod:`.report` -- ``rlaccel report maddpg`` (Fig. 7,
  Table II); :mod:`.baseline` -- the CPU-only baseline it measures.

What needs no simulator:

* :mod:`.task` -- the MPE tasks (Cooperative Communication, Predator-Prey) through
  PettingZoo's parallel API, with the reference's action and reward conventions;
* :mod:`.replay` -- the shared replay buffer and the mini-batch (with its Gumbel noise);
* :mod:`.mlp` -- float32 networks and the Gumbel-softmax head (also the host's inference);
* :mod:`.optim` -- per-tensor clipping, TF1 Adam, SGD, soft target updates;
* :mod:`.config` -- the run's knobs, openai/maddpg's values as defaults;
* :mod:`.reference` -- the float32 reference learner (MADDPG, Algorithm 1), which is also
  the CPU-only baseline;
* :mod:`.training` -- sample generation, the update schedule, curves and timing, shared by
  the reference and the accelerator's host driver.

``machines/maddpg/README.md`` is the machine's specification; ``machines/maddpg/bench/reference.py``,
``machines/maddpg/bench/learning.py`` and ``machines/maddpg/bench/dse.py`` measure it. Modules import their
dependencies (MPE2) themselves; importing this package is cheap.
"""

from rlaccel.isa.machine import Machine

MACHINE = Machine(
    name="maddpg",
    title="MADDPG on CPU-FPGA: one learner pipeline per agent on a ring",
    family="marl",
    models="tlm.family:FAMILY",
    blocks={"maddpg_cu": "rtl.benches:CuBench", "maddpg_ring": "rtl.benches:RingBench"},
    rtl_run={"maddpg_ring": "rtl.transactor:RtlRing"},
    verbs={"dse": "dse"},
    speed="speed:WORKLOAD",
)

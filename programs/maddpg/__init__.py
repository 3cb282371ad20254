"""MADDPG on a CPU-FPGA platform (seed 003): what runs on the machine and on its host.

The machine's side:

* ``learner.s``, ``layout.inc`` -- one learner's program (both training pipelines, the ring,
  the per-batch updates), assembled once per agent; ``*.toml`` -- the manifests;
* :mod:`.plugin` -- the program family: manifest keys, the design-space exploration that
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

``docs/maddpg.md`` is the machine's specification; ``bench/maddpg_reference.py``,
``bench/maddpg_learning.py`` and ``bench/maddpg_dse.py`` measure it. Modules import their
dependencies (MPE2) themselves; importing this package is cheap.
"""

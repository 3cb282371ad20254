"""DARL (seed 004): hyperdimensional Q-learning, one agent (sHDQL) or several (dHDQL) with a
common delayed model synchronised by a butterfly all-reduce.

Phase A holds the float reference and what the phase-B host driver will share with it:
:mod:`.config` (the run's knobs and the two tasks' presets), :mod:`.task` (the gymnasium
environments as the algorithm sees them), :mod:`.replay` (each agent's replay buffer),
:mod:`.reference` (HDQL in float64 numpy, the CPU baseline), :mod:`.functional` (the same
algorithm on the accelerator's unit models, ``tlm/families/darl``, in fixed32 or float64),
:mod:`.training` (the host loop: environments, epsilon-greedy, replay, training stages, the
synchronisation, curves and wall-clock timing), which drives either learner. The machine is
specified in ``docs/darl.md``.
"""

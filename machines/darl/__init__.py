"""DARL: hyperdimensional Q-learning, one agent (sHDQL) or several (dHDQL) with a
common delayed model synchronised by a butterfly all-reduce.

Phase A holds the float reference and what the phase-B host driver will share with it:
:mod:`.config` (the run's knobs and the two tasks' presets), :mod:`.task` (the gymnasium
environments as the algorithm sees them), :mod:`.replay` (each agent's replay buffer),
:mod:`.reference` (HDQL in float64 numpy, the CPU baseline), :mod:`.functional` (the same
algorithm on the accelerator's unit models, ``machines/darl/tlm``, in fixed32 or float64),
:mod:`.training` (the host loop: environments, epsilon-greedy, replay, training stages, the
synchronisation, curves and wall-clock timing), which drives either learner. The machine is
specified in ``README.md``; its ISA family is ``hdc`` (:mod:`.isa`; instruction and unit
models in ``tlm/``).
"""

from rlaccel.isa.machine import Machine

MACHINE = Machine(
    name="darl",
    title="DARL: hyperdimensional Q-learning on several agents with a butterfly all-reduce",
    family="hdc",
    models="tlm:FAMILY",
    blocks={"darl_butterfly": "rtl.benches:ButterflyBench",
            "darl_encoder": "rtl.benches:EncoderBench"},
    rtl_run={"darl_butterfly": "rtl.transactor:RtlButterfly"},
    kernels="tlm.kernels",
    speed="speed:WORKLOAD",
)

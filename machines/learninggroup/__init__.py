"""LearningGroup: IC3Net with fully learnable weight grouping on predator-prey.

Its ISA family is ``sparse`` (:mod:`.isa`; instruction and unit models in ``tlm/``).

The float reference and what the simulator's host driver (:mod:`.host`) shares with it:
:mod:`.config` (network and learning knobs), :mod:`.episodes` (environment, sampling,
batches, returns, success rate), :mod:`.flgw` (grouping masks and their gradients),
:mod:`.ic3net` (the network, forward and backward), :mod:`.rmsprop` and :mod:`.reference`
(the training loop). The machine is described in ``machines/learninggroup/README.md``.
"""

from rlaccel.isa.machine import Machine

MACHINE = Machine(
    name="learninggroup",
    title="LearningGroup: sparse IC3Net training with learnable weight grouping (FP16)",
    family="sparse",
    models="tlm:FAMILY",
    blocks={"lg_vpu": "rtl.benches:VpuBench", "lg_osel": "rtl.benches:OselBench",
            "lg_core": "rtl.benches:CoreBench"},
    rtl_run={"lg_osel": "rtl.transactor:RtlOsel"},
    parallel_environments={"rlaccel/PredatorPrey-v2": "envs.predator_prey:PredatorPreyEnv"},
    speed="speed:WORKLOAD",
)

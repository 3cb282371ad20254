"""The ADHDP accelerator (Zheng & Mazumder, "A Scalable Low-Power Reconfigurable Accelerator
for Action-Dependent Heuristic Dynamic Programming"): online ADHDP actor-critic on a 4-lane,
6-stage fixed-point datapath with the virtual update.

It implements the base ISA of the layers (``isa/base.toml``, whose instruction models
are :mod:`rlaccel.tlm.families.base`) and defines no family of its own. Its room holds the
architectures (``archs/``), the programs and manifests of Fig. 2 and Fig. 7 (``programs/``),
the plants no package provides (``envs/``), the host driver (:mod:`.host`), the float64
golden model (:mod:`.reference`) and an independent reference (:mod:`.independent`), the
batched runner of many seeds (:mod:`.batch`), the report (:mod:`.report`), the datapath's RTL
(``rtl/``), its benchmarks (``bench/``) and its documentation (``README.md``).
"""

from rlaccel.isa.machine import Machine

MACHINE = Machine(
    name="adhdp",
    title="ADHDP accelerator: online actor-critic on a 4-lane fixed-point datapath",
    blocks={"lane": "rtl.benches:LaneBench", "activation": "rtl.benches:ActivationBench",
            "decoder": "rtl.benches:DecoderBench", "datapath": "rtl.benches:DatapathBench"},
    rtl_run={"datapath": "rtl.transactor:RtlDatapath"},
    rtl_speed="rtl.speed",
    environments={"rlaccel/CartPoleADP-v0": "envs.cartpole_adp:CartPoleADPEnv",
                  "rlaccel/TripleLink-v0": "envs.triple_link:TripleLinkEnv",
                  "rlaccel/BallBeam-v0": "envs.ball_beam:BallBeamEnv"},
    speed="speed:WORKLOAD",
)

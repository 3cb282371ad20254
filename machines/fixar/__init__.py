"""FIXAR: DDPG with quantisation-aware training on adaptive array cores (the FIXAR paper).

Its room: the ``ddpg`` ISA family (:mod:`.isa`), its instruction models and unit models
(``tlm/``), the architectures (``archs/``), the program and manifests (``programs/``), the
host driver (:mod:`.host`, :mod:`.driver`), the float32 reference (:mod:`.reference`) and
the fixed-point numerics (:mod:`.numerics`), the report (:mod:`.report`), the RTL of the PE,
the PRNG and the AAP array (``rtl/``), its benchmarks (``bench/``) and its documentation
(``README.md``).
"""

from rlaccel.isa.machine import Machine

MACHINE = Machine(
    name="fixar",
    title="FIXAR: DDPG with quantisation-aware training on adaptive array cores",
    family="ddpg",
    models="tlm.models:FAMILY",
    blocks={"fixar_pe": "rtl.benches:PeBench", "fixar_prng": "rtl.benches:PrngBench",
            "fixar_array": "rtl.benches:ArrayBench"},
    rtl_run={"fixar_prng": "rtl.transactor:RtlPrng"},
    speed="speed:WORKLOAD",
)

"""LearningGroup (seed 000): IC3Net with fully learnable weight grouping on predator-prey.

Phase A holds the float reference and what the phase-B host driver will share with it:
:mod:`.config` (network and learning knobs), :mod:`.episodes` (environment, sampling,
batches, returns, success rate), :mod:`.flgw` (grouping masks and their gradients),
:mod:`.ic3net` (the network, forward and backward), :mod:`.rmsprop` and :mod:`.reference`
(the training loop). The machine is specified in ``docs/learninggroup.md``.
"""

"""The compiled inner loop of the simulator.

The controller (:mod:`rlaccel.tlm.controller`) runs an agent's program here when the
instruction models bound kernels (:class:`rlaccel.tlm.model.Kernel`): :mod:`.program` lays
the pre-decoded program out as tables, :mod:`.interp` is the controller's loop compiled with
numba (:mod:`.jit`; plain Python, same bits, when numba is absent), :mod:`.engine` is its
SimPy process, which returns to Python only for host exchanges, synchronisations, quantum
boundaries, trace hand-overs and instructions without a compiled kernel. The arithmetic the
kernels share is in :mod:`.fixedpoint` (derived from :mod:`rlaccel.isa.dtypes`) and
:mod:`.floatpoint` (numpy's own BLAS and loops, :mod:`.native`). :mod:`.batch` runs many
one-agent machines of the same program as one simulation (``rlaccel run --seeds``), their
timing through a shared timing automaton (:mod:`.automaton`).
"""

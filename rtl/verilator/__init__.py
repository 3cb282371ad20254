"""The Verilator back end: a block's converted Verilog compiled by Verilator into a shared
library (once per Verilog, kept under ``.hdl/``), loaded with ctypes and driven per
transaction from Python by the same benches, drivers and transactors as MyHDL.

:mod:`.verilog` (the converted Verilog, kept per parameter set), :mod:`.build` (the
library, kept per Verilog), :mod:`.ports` and :mod:`.shim` (the ports' buffer slots and the
generated C ABI), :mod:`.model` (the loaded library), :mod:`.signals` (port proxies with
MyHDL's ``.next``/``.val``), :mod:`.kernel` (the event loop that runs the generator
processes), :mod:`.sim` (a block on all of these), :mod:`.jobs` (a transactor's job
simulation). See docs/rtl.md.
"""

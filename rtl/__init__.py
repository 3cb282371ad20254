"""The RTL layer: what every machine's MyHDL blocks are built and checked with; it names no
machine (each machine's blocks, benches and transactors are in ``machines/<name>/rtl/``).

Building blocks: :mod:`rtl.signals` (widths, signals, words packed in a bus), :mod:`rtl.bus`
(the blocks that cut a bus into its words and join words into a bus),
:mod:`rtl.params` (parameters derived once per architecture), :mod:`rtl.fpu` (the IEEE
multiplier and adder every float block shares). Checking them: :mod:`rtl.bench` (the bench
harness), :mod:`rtl.scoreboard` (the in-order checker), :mod:`rtl.drive` (port handshakes
shared by benches and transactors), :mod:`rtl.fixed_stimulus` and :mod:`rtl.float_stimulus`,
:mod:`rtl.cosim` (a bench on MyHDL or Icarus), :mod:`rtl.blocks` (every block by name).
Under the TLM: :mod:`rtl.transactor` and :mod:`rtl.jobs`. Verilog tools: :mod:`rtl.hdl`.
See docs/rtl.md.
"""

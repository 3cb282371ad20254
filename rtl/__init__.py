"""MyHDL RTL of the ADHDP accelerator's critical blocks, checked against the TLM.

Blocks: :mod:`rtl.lane`, :mod:`rtl.activation`, :mod:`rtl.decoder`, :mod:`rtl.datapath`.
Benches and co-simulation: :mod:`rtl.benches`, :mod:`rtl.scoreboard`, :mod:`rtl.cosim`;
Verilog tools: :mod:`rtl.hdl`; the TLM transactor: :mod:`rtl.transactor`. See docs/rtl.md.
"""

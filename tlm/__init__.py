"""The transaction-level model: SystemC TLM-2.0 ideas on SimPy.

=================  ======================================================================
module             holds
=================  ======================================================================
``core``           the TLM-2.0 core: payload, sockets, router, DMI, quantum keeper,
                   memories, the ring and butterfly interconnects
``model``          what the simulator knows about an instruction and a family
``families``       the instruction models, one package per ISA family, and their registry
``platform``       simulated time, the agents, the interconnect (``Platform``)
``agent``          one agent: controller, memories, units, host link
``controller``     fetch, hazards, units, branches, host exchange, synchronisation
``loader``         a binary pre-decoded and bound to an agent
``units``          a unit with its own busy time
``energy``         the ``[energy]`` table and prices
``hostlink``       the host link (both directions) and the host's time line
``results``        what a run reports
``trace``          the Chrome/Perfetto trace
=================  ======================================================================
"""

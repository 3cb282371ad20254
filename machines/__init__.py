"""The machines: one package per accelerator, each declaring ``MACHINE`` (see
:class:`rlaccel.isa.machine.Machine` for what a machine declares and how the layers find it).
Nothing here lists them; :func:`rlaccel.isa.machine.machines` discovers them."""

"""The ISA rows, one module per family; :mod:`rlaccel.isa.table` assembles them."""

"""A block on the Verilator back end: converted, compiled (once per Verilog), loaded, and
given the kernel and the port proxies its drivers run on.

:class:`BlockSim` is what a bench run (:func:`rtl.cosim.run`) and a transactor's job
simulation (:class:`rtl.jobs.JobSim`) build instead of a MyHDL simulation: ``ports`` (the
bench's port names, as proxies of the model's ports), ``clk`` and ``rst`` (the reset, a
model input of a clocked block), ``kernel`` (:mod:`.kernel`) and ``cycles``; the memories
beside the block run in the compiled shim (:meth:`BlockSim.attach_memory`).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from myhdl import ResetSignal

from rlaccel.rtl.clock import half_period_ps
from rlaccel.rtl.memory import Memory
from rlaccel.rtl.signals import flat_ports
from rlaccel.rtl.verilator.build import library
from rlaccel.rtl.verilator.kernel import Kernel
from rlaccel.rtl.verilator.model import Model
from rlaccel.rtl.verilator.signals import OutPort, proxies
from rlaccel.rtl.verilator.verilog import converted

__all__ = ["BlockSim"]


class BlockSim:
    """``block(clk, rst, **ports, prm=prm)`` (``block(**ports, prm=prm)`` when not
    ``clocked``) as a compiled model named ``top``. ``wave``: a waveform file, ``trace`` its
    format (``"vcd"`` or ``"fst"``); ``tick`` runs at every rising edge (a bench counts its
    cycles); ``announce`` hears of a first compilation; ``workdir`` gets a copy of the
    converted Verilog (:mod:`.verilog` keeps it, converted once per parameter set)."""

    def __init__(self, block: Callable, ports: dict, prm, top: str, *, clocked: bool = True,
                 wave: Path | None = None, trace: str | None = None,
                 tick: Callable[[], None] | None = None,
                 announce: Callable[[str], None] | None = None,
                 workdir: Path | None = None):
        rst = ResetSignal(1, active=1, isasync=False)
        if trace is None and wave is not None:
            trace = "fst" if Path(wave).suffix == ".fst" else "vcd"
        vfile = converted(block, ports, prm, top, clocked=clocked)
        if workdir is not None:                    # the Verilog where the caller keeps it
            Path(workdir).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(vfile, Path(workdir) / f"{top}.v")
        lib, layout = library(vfile, top, trace if wave is not None else None, announce)
        half = half_period_ps(prm)
        self.model = Model(lib, layout, half, wave)
        self.kernel = Kernel(self.model, half, tick)
        self.clk = self.kernel.clk
        named = proxies({**ports, "rst": rst}, layout, self.kernel, self.model)
        self.rst = named.pop("rst")
        self.ports = named
        self._signals = flat_ports(ports)

    def attach_memory(self, m: Memory) -> None:
        """Serve the memory ``m`` beside the block in the compiled shim (not as a Python
        process); the inputs its reads drive become read-only views of what it put there."""
        for name in self.model.add_memory(m):
            port = self.model.layout.by_name[name]
            self.ports[name] = OutPort(name, self._signals[name], self.model.inp, port.slot,
                                       port.width, port.signed)

    @property
    def cycles(self) -> int:
        """Rising clock edges so far."""
        return self.kernel.cycles

    def close(self) -> None:
        """Finish the model and its waveform."""
        self.kernel.close()

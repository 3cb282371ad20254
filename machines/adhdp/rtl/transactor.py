"""The transactor: the TLM runs its matrix instructions on the RTL datapath (MyHDL's, or its
Verilog compiled by Verilator: ``backend``).

    platform = Platform(arch, binary, host, datapath=RtlDatapath())

``Platform`` calls :meth:`RtlDatapath.attach` with its agent after pre-decoding; the
transactor replaces the functional ``run`` of every FF, BP, WU and BP_WU in ``system.ops``
with a call that encodes the instruction, hands the word to the RTL datapath, clocks the
MyHDL simulation until ``done``, and adds the RTL's saturation count to the system's. The
datapath's memory ports are served by :func:`.memory.memories` on the simulator's own arrays
(``system.unified.data``, ``system.synapse.data``), so the RTL reads the TLM's state and
writes its results where the functional model would have. The TLM keeps its own timing
(``tlm.families.base.timing``); the transactor checks that every instruction took the RTL
cycles that timing predicts (:func:`.datapath.rtl_cycles`) and counts any difference.

Other matrix instructions (the virtual-update family) keep their functional model.
"""

from __future__ import annotations

from rlaccel.isa.encoding import Instruction
from rlaccel.util.errors import SimError

from rlaccel.rtl.transactor import JobTransactor
from rlaccel.machines.adhdp.rtl.datapath import (DATAPATH_MNEMONICS, datapath, datapath_signals,
                                                 rtl_cycles)
from rlaccel.machines.adhdp.rtl.datapath_driver import run_instruction, wait_ready
from rlaccel.machines.adhdp.rtl.memory import memories
from rlaccel.machines.adhdp.rtl.params import params

__all__ = ["RtlDatapath"]


class RtlDatapath(JobTransactor):
    """A datapath for a one-agent :class:`tlm.platform.Platform` that executes on the RTL."""

    what = "datapath"

    def __init__(self, *, strict_cycles: bool = False):
        self.strict_cycles = strict_cycles
        self.instructions = 0
        self.rtl_cycles = 0
        self.by_mnemonic: dict[str, int] = {}

    # ---------------------------------------------------------------------------------------
    def attach(self, system) -> None:
        """Build the RTL around an agent's memories and take over its matrix ops."""
        from rlaccel.tlm.loader import EXEC
        prm = params(system.arch)
        self.prm = prm
        self.system = system
        ports = datapath_signals(prm)
        self._start(datapath, ports, prm,
                    beside=memories(system.unified.data, system.synapse.data, prm))
        for op in system.ops:
            if op.kind == EXEC and op.mnemonic in DATAPATH_MNEMONICS:
                op.run = self._runner(op)

    def _runner(self, op):
        o = dict(op.operands)
        word = self.prm.enc.encode(Instruction(op.mnemonic, o))
        expected = rtl_cycles(op.mnemonic, o["rows"], o["cols"] - o.get("off", 0),
                              self.prm.lanes, o.get("act", 0))
        counter = self.system.saturations

        def run() -> None:
            cycles, sats, fault = self.execute(word, expected)
            if fault:
                raise SimError(f"PC {op.pc} ({op.text}): the RTL datapath refused the "
                               f"instruction word {self.prm.enc.hex(word)}")
            counter.saturations += sats
            self.instructions += 1
            self.by_mnemonic[op.mnemonic] = self.by_mnemonic.get(op.mnemonic, 0) + 1
            if cycles != expected:
                msg = (f"PC {op.pc} ({op.text}): RTL took {cycles} cycles, the TLM's timing "
                       f"predicts {expected}")
                self._cycles_differ(msg)
                if self.strict_cycles:
                    raise SimError(msg)
        return run

    def execute(self, word: int, expected: int) -> tuple[int, int, bool]:
        """Run one instruction word on the RTL; (cycles from start to done, saturations,
        fault)."""
        def job(io):
            yield from wait_ready(io)
            return (yield from run_instruction(io, word))

        result = self._run(job, expected, self.prm.enc.hex(word))
        self.rtl_cycles += result[0]
        return result

    # ---------------------------------------------------------------------------------------
    @property
    def cycles_per_s(self) -> float:
        return self.rtl_cycles / self.wall_s if self.wall_s else 0.0

    def as_dict(self) -> dict:
        return {"instructions": self.instructions, "by_mnemonic": dict(self.by_mnemonic),
                "rtl_cycles": self.rtl_cycles, "cycle_mismatches": self.cycle_mismatches,
                "wall_s": self.wall_s, "rtl_cycles_per_s": self.cycles_per_s}

    def summary(self) -> str:
        mix = ", ".join(f"{k} {v:,}" for k, v in sorted(self.by_mnemonic.items()))
        return (f"  RTL datapath ({self.backend_name}): {self.instructions:,} matrix "
                f"instructions ({mix}), "
                f"{self.rtl_cycles:,} RTL cycles in {self.wall_s:.1f} s = "
                f"{self.cycles_per_s:,.0f} RTL cycles/s;\n    cycles per instruction equal "
                f"the TLM's issue + depth, {self._differences()}")

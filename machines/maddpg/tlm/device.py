"""FPGA devices for the design-space exploration: super logic regions (SLRs) with their DSP
and BRAM budgets, read from an architecture's ``[device]`` table.

The MADDPG paper's Table I gives the Alveo U200 at 300 MHz, 77 GB/s, 35 MB on chip, 18.6 TOPS, but
no per-SLR budgets. The U200 carries an XCU200 (a Virtex UltraScale+ VU9P): three equal SLRs
of 2,280 DSP slices and 720 36-Kb block RAMs each, 6,840 DSPs and 2,160 BRAMs in all -- the
totals Table II's percentages use. ``machines/maddpg/archs/maddpg.toml`` holds these, once;
``maddpg-shell.toml`` the same card with a Vitis shell in SLR1 (AMD UG1702's platforminfo
example: 1,320 DSPs and 420 BRAMs left there)::

    [device]
    name = "u200"
    total_dsp = 6840            # optional: the device's totals for percentages
    total_bram = 2160
    bram_per_bank = 0.5         # BRAMs per SRAM bank (eq. 6's C_SRAM = F)
    search = "base"             # the DSE's search (machines/maddpg/tlm/dse.py)
    [[device.slr]]
    name = "SLR0"
    dsp = 2280
    bram = 720
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

from rlaccel.isa.arch import check_keys
from rlaccel.util.errors import ArchError

__all__ = ["Slr", "Device", "Fabric", "device_of", "fabric_of", "check_device", "DEVICE_KEYS",
           "FABRIC_KINDS"]

#: the resources the cost model's side of the design search counts
FABRIC_KINDS = ("lut", "ff", "dsp", "bram")

DEVICE_KEYS = ("name", "total_dsp", "total_bram", "bram_per_bank", "search", "slr")


@dataclass(frozen=True)
class Slr:
    """One super logic region: DSP slices and 36-Kb block RAMs available to the learners."""

    name: str
    dsp: int
    bram: float

    def __post_init__(self):
        if self.dsp < 0 or self.bram < 0:
            raise ArchError(f"{self.name}: DSP and BRAM budgets must not be negative "
                            f"({self.dsp}, {self.bram})")


@dataclass(frozen=True)
class Fabric:
    """The cost model's resources for the design search (:mod:`rlaccel.tlm.cost`): one
    compute-unit element's LUTs, flip-flops and DSPs, one learner's share of the units the
    search does not size (the ring), and every SLR's budget at UG949's utilisation guideline
    (LUT 70 %, FF 50 %, DSP and BRAM 80 %) and its whole capacity. A learner's block RAMs
    follow its unroll factors (:mod:`.onchip`)."""

    element: dict           # {"lut", "ff", "dsp"} of one element
    learner: dict           # {"lut", "ff", "dsp", "bram"} of one learner's fixed units
    budget: tuple           # per SLR {"lut", "ff", "dsp", "bram"} at the guideline
    capacity: tuple         # per SLR {"lut", "ff", "dsp", "bram"}
    source: str = ""


@dataclass(frozen=True)
class Device:
    """A device: its SLRs, its clock and, for utilisation percentages, the whole device's
    DSPs and BRAMs (which may exceed the SLRs' budgets when a shell takes some);
    ``bram_per_bank`` and ``search`` are the DSE's settings for it."""

    name: str
    clock_mhz: float
    slrs: tuple
    total_dsp: int | None = None
    total_bram: float | None = None
    bram_per_bank: float = 0.5
    search: str = "base"
    fabric: Fabric | None = None

    def __post_init__(self):
        if not self.slrs:
            raise ArchError(f"device {self.name} has no SLRs")
        if not self.clock_mhz > 0:
            raise ArchError(f"device {self.name}: the clock must be positive, not "
                            f"{self.clock_mhz!r}")

    @property
    def dsp(self) -> int:
        return self.total_dsp if self.total_dsp is not None else sum(s.dsp for s in self.slrs)

    @property
    def bram(self) -> float:
        return (self.total_bram if self.total_bram is not None
                else sum(s.bram for s in self.slrs))


def _number(table, key, where, *, integer=False, positive=False):
    v = table[key]
    ok = isinstance(v, int) if integer else isinstance(v, Real)
    if isinstance(v, bool) or not ok or v < 0 or (positive and v == 0):
        what = "a whole number" if integer else "a number"
        raise ArchError(f"{where} {key} must be {what} {'> 0' if positive else '>= 0'}, "
                        f"not {v!r}")
    return v


def check_device(arch) -> None:
    """An architecture's ``[device]`` table, when it has one, judged as :func:`device_of`
    does (the table is needed only by the design-space exploration)."""
    if "device" in arch.extra:
        device_of(arch)


def device_of(arch) -> Device:
    """The device of an architecture's ``[device]`` table (module docstring), clocked at the
    architecture's clock; an ArchError names what is missing or wrong."""
    origin = arch.origin
    table = arch.extra.get("device")
    where = f"{origin}: [device]"
    if not isinstance(table, dict):
        raise ArchError(f"{origin}: the design-space exploration needs a [device] table "
                        f"(its SLRs with their DSP and BRAM budgets)")
    check_keys(table, DEVICE_KEYS, where)
    slrs = table.get("slr")
    if not isinstance(slrs, list) or not slrs or not all(isinstance(s, dict) for s in slrs):
        raise ArchError(f"{where} needs one or more [[device.slr]] tables (name, dsp, bram)")
    out = []
    for i, s in enumerate(slrs):
        w = f"{origin}: [[device.slr]] {i + 1}"
        missing = [k for k in ("name", "dsp", "bram") if k not in s]
        extra = sorted(set(s) - {"name", "dsp", "bram"})
        if missing or extra:
            raise ArchError(f"{w}: " + (f"missing {', '.join(missing)}" if missing else
                                        f"unknown key(s) {', '.join(extra)}")
                            + "; an SLR has name, dsp, bram")
        out.append(Slr(str(s["name"]), _number(s, "dsp", w, integer=True),
                       float(_number(s, "bram", w))))
    search = table.get("search", "base")
    if search not in ("base", "latency"):
        raise ArchError(f"{where} search must be 'base' or 'latency', not {search!r}")
    totals = {k: _number(table, k, where, integer=(k == "total_dsp"))
              for k in ("total_dsp", "total_bram") if k in table}
    bpb = (_number(table, "bram_per_bank", where, positive=True)
           if "bram_per_bank" in table else 0.5)
    return Device(str(table.get("name", arch.name)), arch.knobs.clock_mhz, tuple(out),
                  totals.get("total_dsp"), totals.get("total_bram"), float(bpb), search,
                  fabric_of(arch, len(out)))


def fabric_of(arch, n_slrs: int) -> Fabric | None:
    """The cost model's side of the design (:class:`Fabric`) from the architecture's
    ``[technology]`` and ``[resources]`` (a ``cu_element`` row: one element; the rows whose
    count does not need the search's ``elements`` or ``brams``: fixed, shared by the
    learners); None for an architecture without them."""
    from rlaccel.tlm.cost import resources_of
    from rlaccel.tlm.cost.technology import Fpga, technology_of
    tech = technology_of(arch)
    row = arch.extra.get("resources", {}).get("cu_element")
    if not isinstance(tech, Fpga) or not isinstance(row, dict):
        return None
    fixed = resources_of(arch, tech, partial=True)
    n = max(1, arch.knobs.agents)
    dev = tech.dev
    slrs = fixed.slr[:n_slrs]
    return Fabric(element={k: float(row.get(k, 0)) for k in FABRIC_KINDS[:3]},
                  learner={k: fixed.total[k] / n for k in FABRIC_KINDS},
                  budget=tuple({k: s["budget"][k] for k in FABRIC_KINDS} for s in slrs),
                  capacity=tuple({k: dev[k] / len(fixed.slr) for k in FABRIC_KINDS}
                                 for _ in slrs),
                  source=row.get("source", ""))

"""Technologies: what one primitive operation costs in a process (an ASIC library at a node
and supply) or on an FPGA family, derived from ``primitives.toml``.

Both kinds answer the same questions (:class:`Technology`): an integer adder or multiplier
of given widths, a float adder or multiplier of a format, a multiplexer, a word of a memory
of a given kind and size, a flip-flop's clock per cycle, leakage, an off-chip DRAM bit. An
ASIC scales the 45 nm (Horowitz), 40 nm (Aladdin) and 65 nm (CACTI) primitives to its node
and voltage by Stillmaker and Baas' energy fits. An FPGA prices the same function as
standard cells at its family's node and voltage, times the FPGA/ASIC gap of Kuon and Rose:
the fabric factor for what LUTs and flip-flops implement, the hard-block factor for what a
DSP slice or a block RAM implements (a multiplier is tiled onto 27 x 18 DSP slices, each
priced at its full width: a hard block spends its width whatever the operands'). A design
whose multipliers are built in LUTs (``[technology] multipliers = "fabric"``: a synthesis
without DSPs) has them priced as fabric: the standard-cell multiplier of the operands' widths
times the fabric factor.
"""

from __future__ import annotations

from bisect import bisect_left
from math import ceil, log, log2, sqrt
from typing import Mapping

from rlaccel.isa.arch import arch_table
from rlaccel.util.errors import ArchError

from rlaccel.tlm.cost.primitives import Price, table

__all__ = ["energy_fit", "scale_factor", "Technology", "Asic", "Fpga", "technology_of",
           "float_significand", "TECHNOLOGY_KEYS", "MULTIPLIERS"]

#: the keys of an architecture's ``[technology]`` table
TECHNOLOGY_KEYS = ("kind", "node", "voltage", "sram", "device", "static", "memories", "banks",
                   "clock_gating", "multipliers")
#: what an FPGA's multipliers are built from (``[technology] multipliers``)
MULTIPLIERS = ("dsp", "fabric")


# ---- scaling ---------------------------------------------------------------------------------
def energy_fit(node: str, voltage: float) -> float:
    """Stillmaker and Baas' relative energy of one operation at ``node`` and ``voltage``;
    a node between two fits (``"40"``) is interpolated linearly in nanometres."""
    fits, nm = table("scaling.fits"), table("scaling.nodes")
    if node in fits:
        a, b, c = fits[node]
        return a * voltage ** 2 + b * voltage + c
    try:
        n = float(node)
    except ValueError:
        raise ArchError(f"technology node '{node}': not one of {', '.join(fits)} nor a number "
                        f"of nanometres between them") from None
    # interpolate between the low-power fits around it (those the primitives use)
    order = sorted((v, k) for k, v in nm.items() if k in ("lp32", "lp45", "65"))
    sizes = [v for v, _ in order]
    i = bisect_left(sizes, n)
    if i == 0 or i >= len(sizes):
        raise ArchError(f"technology node {node} nm is outside the fits' range "
                        f"{sizes[0]:g}-{sizes[-1]:g} nm")
    (n0, k0), (n1, k1) = order[i - 1], order[i]
    e0, e1 = energy_fit(k0, voltage), energy_fit(k1, voltage)
    return e0 + (n - n0) / (n1 - n0) * (e1 - e0)


def scale_factor(src: Mapping, node: str, voltage: float) -> float:
    """Energy at ``node`` / ``voltage`` over energy at a primitive table's own."""
    return energy_fit(node, voltage) / energy_fit(str(src["node"]), float(src["voltage"]))


def float_significand(bits: int) -> int:
    """Significand bits (with the hidden one) of an IEEE binary format of ``bits``."""
    sig = {16: 11, 32: 24, 64: 53}
    if bits not in sig:
        raise ArchError(f"no IEEE binary format of {bits} bits (16, 32 or 64)")
    return sig[bits]


def _loglog(points, x: float) -> float:
    """Log-log interpolation through ``(x, y)`` points (sorted); beyond the last point the
    square-root law, before the first the first value."""
    if x <= points[0][0]:
        return points[0][1]
    if x >= points[-1][0]:
        return points[-1][1] * sqrt(x / points[-1][0])
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            t = (log(x) - log(x0)) / (log(x1) - log(x0))
            return y0 * (y1 / y0) ** t
    raise AssertionError("unreachable")


class Technology:
    """What primitive operations cost; subclasses :class:`Asic` and :class:`Fpga`."""

    kind = ""
    name = ""

    # ---- arithmetic in standard cells at this technology's node (before any FPGA gap) ----
    def _cells(self) -> tuple[str, float]:
        raise NotImplementedError

    def _scaled(self, src_path: str, pj: float, how: str) -> Price:
        src = table(src_path)
        node, v = self._cells()
        f = scale_factor(src, node, v)
        return Price(pj * f, f"{how} x{f:.3g} ({src['node']} {src['voltage']} V -> {node} "
                             f"{v} V)", (src["ref"], "stillmaker2017"))

    def cell_add(self, bits: int) -> Price:
        t = table("asic.arith")
        return self._scaled("asic.arith", t["int_add32"] * bits / 32,
                            f"{bits}-bit add: 0.1 pJ x {bits}/32")

    def cell_mul(self, a: int, b: int) -> Price:
        t = table("asic.arith")
        return self._scaled("asic.arith", t["int_mul32"] * a * b / 1024,
                            f"{a}x{b}-bit multiply: 3.1 pJ x {a}*{b}/32^2")

    def cell_fadd(self, bits: int) -> Price:
        t = table("asic.arith")
        pj = t["fp16_add"] if bits == 16 else t["fp32_add"] * bits / 32
        return self._scaled("asic.arith", pj, f"fp{bits} add" + ("" if bits in (16, 32) else
                                                                  f": 0.9 pJ x {bits}/32"))

    def cell_fmul(self, bits: int) -> Price:
        t = table("asic.arith")
        if bits == 16:
            pj, how = t["fp16_mul"], "fp16 multiply"
        else:
            s = float_significand(bits)
            pj = t["fp32_mul"] * (s / 24) ** 2
            how = "fp32 multiply" if bits == 32 else f"fp{bits} multiply: 3.7 pJ x ({s}/24)^2"
        return self._scaled("asic.arith", pj, how)

    def cell_register(self, bits: float) -> Price:
        """Clocking ``bits`` flip-flops once (Aladdin's register access)."""
        t = table("asic.register")
        return self._scaled("asic.register", t["bit_pj"] * bits,
                            f"{bits:g} flip-flop bits x 0.009 pJ")

    def cell_sram_bit(self, capacity_bits: float, write: bool = False) -> Price:
        """One bit read (written) of an SRAM of ``capacity_bits``: Horowitz's 45 nm curve."""
        pts = sorted((b * 8, pj / bits) for b, bits, pj in table("asic.sram")["points"])
        e = _loglog(pts, capacity_bits)
        return self._scaled("asic.sram", e, f"SRAM bit of {capacity_bits / 8:g} B "
                                            f"(45 nm 64-bit accesses, per bit, log-log)")

    # ---- the interface the cost model uses ----------------------------------------------
    def add(self, bits: int) -> Price:
        raise NotImplementedError

    def mul(self, a: int, b: int, on: str | None = None) -> Price:
        """An ``a`` x ``b`` multiply; ``on`` (an FPGA's ``"dsp"`` or ``"fabric"``) overrides
        what the technology builds multipliers from (an ASIC has standard cells only)."""
        raise NotImplementedError

    def fadd(self, bits: int) -> Price:
        raise NotImplementedError

    def fmul(self, bits: int, on: str | None = None) -> Price:
        raise NotImplementedError

    def mux(self, bits: int, ways: int) -> Price:
        """A ``ways``:1 multiplexer of ``bits``: log2(ways) levels, each priced as an adder of
        the width (an upper estimate: a multiplexer bit switches less than an adder bit)."""
        levels = ceil(log2(ways)) if ways > 1 else 0
        return (self.add(bits) * levels).named(f"{ways}:1 {bits}-bit mux ({levels} x "
                                               f"{bits}-bit add)") if levels else Price(0.0)

    def memory(self, kind: str, words: int, bits: int) -> tuple[Price, Price]:
        """(read, write) of one ``bits`` word of a memory of ``words`` such words."""
        raise NotImplementedError

    def flipflops(self, bits: float) -> Price:
        """Clocking ``bits`` flip-flops for one cycle."""
        raise NotImplementedError

    def dram(self, kind: str, bits: int) -> Price:
        t = table(f"dram.{kind}") if kind in ("hbm2", "ddr") else None
        if t is None:
            raise ArchError(f"no off-chip memory '{kind}' (hbm2, ddr)")
        return Price(t["pj_per_bit"] * bits, f"{bits} bits of {kind} at {t['pj_per_bit']} pJ",
                     (t["ref"],))


class Asic(Technology):
    """Standard cells at ``node`` and ``voltage``; on-chip RAMs from the ``sram`` table."""

    kind = "asic"

    def __init__(self, node: str, voltage: float, sram: str = "asic.sram",
                 clock_gating: bool = False):
        self.node, self.voltage, self.sram, self.clock_gating = str(node), float(voltage), \
            sram, bool(clock_gating)
        self.name = f"asic {node} {voltage} V"
        energy_fit(self.node, self.voltage)         # a known node
        table(sram)

    def _cells(self):
        return self.node, self.voltage

    def add(self, bits):
        return self.cell_add(bits)

    def mul(self, a, b, on=None):
        return self.cell_mul(a, b)

    def fadd(self, bits):
        return self.cell_fadd(bits)

    def fmul(self, bits, on=None):
        return self.cell_fmul(bits)

    def memory(self, kind, words, bits):
        if kind in ("hbm2", "ddr"):
            p = self.dram(kind, bits)
            return p, p
        if kind == "ff":
            p = self.cell_register(bits)
            return p, p
        if kind != "sram":
            raise ArchError(f"an ASIC memory is 'sram', 'ff', 'hbm2' or 'ddr', not '{kind}'")
        cap = words * bits
        if self.sram == "asic.sram":
            r = self.cell_sram_bit(cap)
            return r * bits, r * bits
        t = table(self.sram)
        pts_r = sorted((b * 8, rd / w) for b, w, rd, wr in t["points"])
        pts_w = sorted((b * 8, wr / w) for b, w, rd, wr in t["points"] if wr >= 0)
        out = []
        for pts, what in ((pts_r, "read"), (pts_w, "write")):
            e = _loglog(pts, cap)
            out.append(self._scaled(self.sram, e * bits,
                                    f"{bits}-bit {what} of a {cap / 8:g}-byte RAM "
                                    f"({e:.4f} pJ/bit, log-log in capacity)"))
        return out[0], out[1]

    def flipflops(self, bits):
        return self.cell_register(bits)

    def leakage_w(self, ff_bits: float, multipliers: list, adders: list) -> tuple[float, str]:
        """Static watts of flip-flops and arithmetic units (multipliers ``(a, b)``, adders of
        ``bits``), scaled like energy (Accelergy's convention)."""
        t = table("asic.register")
        _, f = self._cells(), scale_factor(t, *self._cells())
        uw = (ff_bits * t["bit_leak_uw"]
              + sum(t["mul32_leak_uw"] * a * b / 1024 for a, b in multipliers)
              + sum(t["add32_leak_uw"] * n / 32 for n in adders))
        return uw * 1e-6 * f, (f"leakage of {ff_bits:g} flip-flop bits, {len(multipliers)} "
                               f"multipliers, {len(adders)} adders (Aladdin 40 nm) x{f:.3g}")


class Fpga(Technology):
    """An FPGA device of ``primitives.toml``: its family's node and voltage, the fabric and
    hard-block gaps, its resources and measured idle power."""

    kind = "fpga"

    def __init__(self, device: str, static: str = "board", multipliers: str = "dsp"):
        dev = table(f"fpga.device.{device}") if device in table("fpga.device") else None
        if dev is None:
            raise ArchError(f"no FPGA device '{device}' in the cost model's primitives "
                            f"(known: {', '.join(table('fpga.device'))})")
        if static not in ("board", "chip"):
            raise ArchError(f"[technology] static must be 'board' (the card's idle power, what "
                            f"a board utility measures) or 'chip' (the FPGA's own, what XPE "
                            f"estimates), not {static!r}")
        if multipliers not in MULTIPLIERS:
            raise ArchError(f"[technology] multipliers must be 'dsp' (DSP slices, the default) "
                            f"or 'fabric' (LUTs: a design synthesised without DSPs), not "
                            f"{multipliers!r}")
        self.device, self.dev, self.static = device, dev, static
        self.multipliers = multipliers
        self.family = table(f"fpga.{dev['family']}")
        self.gap = table("fpga.gap")
        self.name = f"fpga {device}"

    def _cells(self):
        return str(self.family["node"]), float(self.family["voltage"])

    def _soft(self, p: Price) -> Price:
        g = self.gap["soft"]
        return Price(p.pj * g, f"fabric x{g:g} ({p.how})", (*p.refs, "kuon2007"))

    def _hard(self, p: Price) -> Price:
        g = self.gap["hard"]
        return Price(p.pj * g, f"hard block x{g:g} ({p.how})", (*p.refs, "kuon2007"))

    def dsp_tiles(self, a: int, b: int) -> int:
        """DSP48E2 slices a signed ``a`` x ``b`` multiplier takes (27 x 18 tiles, one bit of
        each operand a sign)."""
        d = table("fpga.dsp48e2")
        ta, tb = d["a_bits"] - 1, d["b_bits"] - 1
        return min(ceil(a / ta) * ceil(b / tb), ceil(b / ta) * ceil(a / tb))

    def dsp_op(self) -> Price:
        """One DSP48E2 operation at full width: a 27 x 18 multiply and a 48-bit add."""
        d = table("fpga.dsp48e2")
        p = self.cell_mul(d["a_bits"], d["b_bits"]) + self.cell_add(d["acc_bits"])
        g = self.gap["hard"]
        return Price(p.pj * g, f"DSP48E2 operation ({p.how}), hard block x{g:g}",
                     (*p.refs, "ug579", "kuon2007"))

    def add(self, bits):
        return self._soft(self.cell_add(bits))

    def mul(self, a, b, on=None):
        on = on or self.multipliers
        if on not in MULTIPLIERS:
            raise ArchError(f"a multiplier is on 'dsp' or 'fabric', not {on!r}")
        if on == "fabric":
            p = self.cell_mul(a, b)
            g = self.gap["soft"]
            return Price(p.pj * g, f"{a}x{b} multiply in LUTs ({p.how}), fabric x{g:g}",
                         (*p.refs, "kuon2007"))
        n = self.dsp_tiles(a, b)
        op = self.dsp_op()
        return Price(n * op.pj, f"{a}x{b} multiply on {n} DSP48E2 ({op.how})", op.refs)

    def fadd(self, bits):
        return self._soft(self.cell_fadd(bits))

    def fmul(self, bits, on=None):
        s = float_significand(bits)
        sig = self.mul(s, s, on)
        rest = self.cell_fmul(bits).pj - self.cell_mul(s, s).pj
        soft = self._soft(Price(max(rest, 0.0), f"fp{bits} multiply less its {s}x{s} "
                                                f"significand product",
                                (table("asic.arith")["ref"], "stillmaker2017")))
        return sig + soft

    def _block(self, kind: str):
        return table(f"fpga.{'bram36' if kind == 'bram' else 'uram288'}")

    def memory(self, kind, words, bits):
        if kind in ("hbm2", "ddr"):
            p = self.dram(kind, bits)
            return p, p
        if kind == "ff":
            p = self._soft(self.cell_register(bits))
            return p, p
        if kind not in ("bram", "uram"):
            raise ArchError(f"an FPGA memory is 'bram', 'uram', 'ff', 'hbm2' or 'ddr', "
                            f"not '{kind}'")
        blk = self._block(kind)
        e = self.cell_sram_bit(blk["bits"])
        p = self._hard(e * bits)
        p = Price(p.pj, f"{bits} bits of a {kind.upper()} ({blk['bits'] // 1024} Kb array: "
                        f"{e.how}) x{self.gap['hard']:g}", (*e.refs, "ug573", "kuon2007"))
        return p, p

    def flipflops(self, bits):
        return self._soft(self.cell_register(bits))

    def static_w(self) -> tuple[float, str, str]:
        """Watts with no work: the card's (``static = "board"``) or the chip's idle reading."""
        key = "idle_board_w" if self.static == "board" else "idle_chip_w"
        return float(self.dev[key]), (f"idle {'card' if self.static == 'board' else 'FPGA core'}"
                                      f" power of the {self.device}"), self.dev["idle_ref"]

    def blocks(self, kind: str, words: int, bits: int, banks: int = 1) -> int:
        """Block RAMs (36 Kb) or UltraRAMs (288 Kb) holding ``words`` of ``bits`` in
        ``banks`` independently addressed banks (each bank its own blocks)."""
        if kind == "bram":
            depth = {1: 32768, 2: 16384, 4: 8192, 9: 4096, 18: 2048, 36: 1024, 72: 512}
            w = next((x for x in depth if x >= bits), None)
            par, per = (ceil(bits / 72), 512) if w is None else (1, depth[w])
        elif kind == "uram":
            par, per = ceil(bits / 72), 4096 * max(1, 72 // bits)
        else:
            return 0
        per_bank = ceil(words / banks)
        return banks * par * ceil(per_bank / per)


def technology_of(arch) -> Technology | None:
    """The technology an architecture states in ``[technology]`` (None: it has none)."""
    if "technology" not in arch.extra:
        return None
    t = arch_table(arch, "technology", TECHNOLOGY_KEYS)
    where = f"{arch.origin}: [technology]"
    kind = t.get("kind")
    if kind == "asic":
        for key in ("node", "voltage"):
            if key not in t:
                raise ArchError(f"{where} needs {key} (an ASIC's process node and supply)")
        v = t["voltage"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.3 <= v <= 2.0:
            raise ArchError(f"{where} voltage must be a supply in volts (0.3-2.0), not {v!r}")
        if "multipliers" in t:
            raise ArchError(f"{where} multipliers is an FPGA's choice (DSP slices or LUTs); an "
                            f"ASIC's multipliers are standard cells")
        sram = t.get("sram", "sram")
        try:
            return Asic(str(t["node"]), float(v), f"asic.{sram}", t.get("clock_gating", False))
        except ArchError as exc:
            raise ArchError(f"{where}: {exc}") from None
    if kind == "fpga":
        if "device" not in t:
            raise ArchError(f"{where} needs device (an FPGA card of the cost model)")
        try:
            return Fpga(str(t["device"]), str(t.get("static", "board")),
                        str(t.get("multipliers", "dsp")))
        except ArchError as exc:
            raise ArchError(f"{where}: {exc}") from None
    raise ArchError(f"{where} kind must be 'asic' or 'fpga', not {kind!r}")

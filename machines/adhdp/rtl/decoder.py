"""The instruction decoder: an instruction word to its mnemonic and operand fields.

Everything is read from the architecture's :class:`~isa.encoding.Encoding` (itself laid out
from :mod:`isa.table`): the opcode field, each mnemonic's major opcode and selector values,
every format's field positions and widths, which fields are operands, which kinds are
stored minus one, which are signed, and each kind's legal range. The logic is a set of
small comparators and multiplexer chains generated from those tables, so a change to the
table changes the decoder and nothing here restates a number.

A word is *legal* exactly when :meth:`Encoding.decode` accepts it: a known opcode and
selector, reserved fields zero, and every operand inside its kind's range.
"""

from __future__ import annotations

from myhdl import Signal, always_comb, block, intbv

from rlaccel.machines.adhdp.rtl.params import Params
from rlaccel.rtl.signals import bits_for, sig_signed, sig_unsigned

__all__ = ["decoder", "DecodedFields", "mnemonics", "mnemonic_code"]


def mnemonics(prm: Params) -> tuple[str, ...]:
    """The architecture's mnemonics in table order; the decoder's ``mn`` is an index."""
    return tuple(prm.enc.ops)


def mnemonic_code(prm: Params, mnemonic: str) -> int:
    return mnemonics(prm).index(mnemonic)


def _field_specs(prm: Params) -> dict[str, dict]:
    """Per operand field name: its (format -> Field) placements, output width and sign."""
    enc = prm.enc
    g = prm.arch.geometry
    specs: dict[str, dict] = {}
    for fmt, fields in enc.layouts.items():
        for f in fields:
            if f.name == "op" or f.kind in ("funct", "mode"):
                continue
            s = specs.setdefault(f.name, {"places": {}, "signed": False, "bits": 1})
            s["places"][fmt] = f
            lo, hi = enc.field_range(f.kind)
            if f.kind == "word":
                s["signed"] = True
                s["bits"] = max(s["bits"], f.width)
            else:
                s["bits"] = max(s["bits"], bits_for(hi), f.width + (f.kind in g.biased))
    signed = {n for n, s in specs.items() if s["signed"]}
    for n in signed:      # a field name is signed in every format or in none
        assert all(f.kind == "word" for f in specs[n]["places"].values()), n
    return specs


class DecodedFields:
    """The decoder's outputs: ``legal``, ``mn`` and one signal per operand field name.

    Converted to Verilog as ports ``<instance>_<name>``. ``names`` limits the field outputs
    to those a user needs (the datapath wants the matrix format's operands only); the
    mnemonic and legality are always decoded in full.
    """

    def __init__(self, prm: Params, names=None):
        self.legal = Signal(bool(0))
        self.mn = sig_unsigned(bits_for(len(mnemonics(prm)) - 1))
        self.names = []
        for name, s in sorted(_field_specs(prm).items()):
            if names is not None and name not in names:
                continue
            setattr(self, name, sig_signed(s["bits"]) if s["signed"] else
                    sig_unsigned(s["bits"]))
            self.names.append(name)


# -------------------------------------------------------------------- generated building blocks
@block
def _check(word, hit_out, lo: int, width: int, limit: int, equal: bool, hit_in=None):
    """hit_out = hit_in and word[lo+width:lo] (== or <=) limit."""
    if hit_in is None:
        if equal:
            @always_comb
            def first_eq():
                hit_out.next = word[lo + width:lo] == limit
            return first_eq

        @always_comb
        def first_le():
            hit_out.next = word[lo + width:lo] <= limit
        return first_le
    if equal:
        @always_comb
        def eq():
            hit_out.next = hit_in and word[lo + width:lo] == limit
        return eq

    @always_comb
    def le():
        hit_out.next = hit_in and word[lo + width:lo] <= limit
    return le


@block
def _any(a, b, out):
    """out = a or b."""
    @always_comb
    def either():
        out.next = a or b
    return either


@block
def _pick(word, sel, v_in, v_out, lo: int, width: int, bias: int, signed: bool):
    """v_out = the field word[lo+width:lo] (+ bias, sign-extended if signed) if sel, else v_in;
    v_in None starts the chain at zero."""
    if signed and v_in is None:
        @always_comb
        def pick_signed_first():
            if sel:
                v_out.next = word[lo + width:lo].signed()
            else:
                v_out.next = 0
        return pick_signed_first
    if signed:
        @always_comb
        def pick_signed():
            if sel:
                v_out.next = word[lo + width:lo].signed()
            else:
                v_out.next = v_in
        return pick_signed
    if v_in is None:
        @always_comb
        def pick_first():
            if sel:
                v_out.next = word[lo + width:lo] + bias
            else:
                v_out.next = 0
        return pick_first

    @always_comb
    def pick():
        if sel:
            v_out.next = word[lo + width:lo] + bias
        else:
            v_out.next = v_in
    return pick


@block
def _code(ok, v_in, v_out, code: int):
    """v_out = code if ok else v_in (v_in None: 0)."""
    if v_in is None:
        @always_comb
        def code_first():
            if ok:
                v_out.next = code
            else:
                v_out.next = 0
        return code_first

    @always_comb
    def code_next():
        if ok:
            v_out.next = code
        else:
            v_out.next = v_in
    return code_next


@block
def decoder(word, fields, *, prm: Params):
    """Instruction decoder (combinational).

    word -- in, the instr_bits-bit instruction word
    fields -- out, a DecodedFields bundle:
        legal -- the word is an instruction of the architecture (Encoding.decode accepts it)
        mn -- index of the mnemonic in the architecture's table order (mnemonics(prm))
        <operand> -- one output per operand field name of the architecture's formats: the
            field of the decoded format, plus one for kinds stored minus one, sign-extended
            for data words, 0 when the format has no such field
    """
    enc = prm.enc
    g = prm.arch.geometry
    specs = _field_specs(prm)
    insts: list = []
    ok_by_mn = {}
    for m, d in enc.ops.items():
        layout = enc.layout(m)
        checks = []
        for f in layout:
            if f.name == "op":
                checks.append((f.lsb, f.width, d.opcode, True))
            elif f.name in d.fixed:
                checks.append((f.lsb, f.width, d.fixed[f.name], True))
            elif f.name not in d.operands:
                checks.append((f.lsb, f.width, 0, True))         # reserved: zero
            else:
                lo, hi = enc.field_range(f.kind)
                raw_hi = hi - (1 if f.kind in g.biased else 0)
                if f.kind != "word" and raw_hi < (1 << f.width) - 1:
                    checks.append((f.lsb, f.width, raw_hi, False))
        end = layout[-1].lsb + layout[-1].width
        if end < enc.instr_bits:                                  # bits past the format
            checks.append((end, enc.instr_bits - end, 0, True))
        hit = None                                                # a chain of checks
        for lo, width, limit, equal in checks:
            out = Signal(bool(0))
            insts.append(_check(word, out, lo, width, limit, equal, hit_in=hit))
            hit = out
        ok_by_mn[m] = hit

    codes = mnemonics(prm)
    legal_acc = None
    mn_acc = None
    for i, m in enumerate(codes):
        ok = ok_by_mn[m]
        last = i == len(codes) - 1
        if legal_acc is None and not last:
            legal_acc = ok
        else:
            nxt = fields.legal if last else Signal(bool(0))
            insts.append(_any(ok if legal_acc is None else legal_acc, ok, nxt))
            legal_acc = nxt
        out = fields.mn if last else sig_unsigned(len(fields.mn))
        insts.append(_code(ok, mn_acc, out, i))
        mn_acc = out

    fmt_sel = {}
    wanted = {fmt for name in fields.names for fmt in specs[name]["places"]}
    for fmt in sorted(wanted):
        members = [ok_by_mn[m] for m, d in enc.ops.items() if d.format == fmt]
        acc = members[0]
        for ok in members[1:]:
            nxt = Signal(bool(0))
            insts.append(_any(acc, ok, nxt))
            acc = nxt
        fmt_sel[fmt] = acc

    for name, s in sorted(specs.items()):
        if name not in fields.names:
            continue
        target = getattr(fields, name)
        places = sorted(s["places"].items())
        acc = None
        for k, (fmt, f) in enumerate(places):
            last = k == len(places) - 1
            out = target if last else Signal(intbv(0, min=target.min, max=target.max))
            insts.append(_pick(word, fmt_sel[fmt], acc, out, f.lsb, f.width,
                               1 if f.kind in g.biased else 0, f.kind == "word"))
            acc = out
    return insts

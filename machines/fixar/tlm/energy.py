"""Prices of the ddpg family's energy actions, composed by the cost model
(:mod:`rlaccel.tlm.cost`) at the architecture's technology (the U50 of ``fixar.toml``).

Widths follow the architecture's number formats (:func:`~.state.formats`): the weight word
``wb`` bits (32 at q4.28), the gradient word, the accumulator's word ``w``.

* ``pe_mac32`` -- a weight x 32-bit activation MAC on the configurable PE (the FIXAR paper,
  Fig. 5): two ``wb`` x 16 multipliers (each on DSP slices), the shifted sum of their
  products and the accumulate, and the weight read from the weight memory (one word per MAC:
  an upper estimate, a weight row broadcast over a PE column is read once for the column);
* ``pe_mac16`` -- a weight x 16-bit MAC: one multiplier and the accumulate, the weight read;
* ``adam_word`` -- one weight through the Adam unit in float32 (our section 13 of the
  machine's README): eight multiplies (g^2, the two moments' two products each, the step,
  and the square root and divide, each priced as one multiply: an iterative unit's order),
  four adds, and the gradient, both moments and the weight read, the moments and the weight
  written;
* ``soft_word`` -- ``w' = (1 - tau) w' + tau w``: two weight-word multiplies, an add, two
  weight words read and one written;
* ``prng_sample`` -- one Gaussian of the PRNG (:mod:`.prng`): six 32-bit xorshift steps of
  three shift-xors each (each priced as a 32-bit add) and the twelve-term sum of 16-bit
  uniforms;
* ``vec_op`` -- one element of the accumulator / activation unit: an add of the word and a
  buffer word read and written.
"""

from __future__ import annotations

__all__ = ["prices"]


def prices(cost) -> dict:
    from rlaccel.machines.fixar.tlm.state import formats
    k = cost.knobs
    f = formats(cost.arch, cost.dtype)
    w = f.acc.bits                              # the accumulator's word
    wb, gb = f.weight.bits, f.grad.bits         # the weight and gradient memories' words
    t = cost.tech
    half = t.mul(wb, 16)
    weight, weight_w = cost.memory("synapse", k.synapse_words, "uram", bits=wb)
    grad, _ = cost.memory("synapse", k.synapse_words, "uram", bits=gb)
    moment, moment_w = cost.memory("synapse", k.synapse_words, "uram", bits=32)
    buf_r, buf_w = cost.memory("buffer", max(k.buffer_words, 1), "bram")
    acc = t.add(2 * w)
    mac32 = (half * 2 + t.add(wb + 16) + acc + weight).named(
        f"two {wb}x16 multiplies ({half.how}) + their shifted sum ({wb + 16}-bit add) + the "
        f"{2 * w}-bit accumulate + a {wb}-bit weight read ({weight.how})")
    mac16 = (half + acc + weight).named(
        f"a {wb}x16 multiply ({half.how}) + the {2 * w}-bit accumulate + a {wb}-bit weight read")
    fmul, fadd = t.fmul(32), t.fadd(32)
    adam = (fmul * 8 + fadd * 4 + grad + weight + moment * 2 + weight_w + moment_w * 2).named(
        f"float32 Adam step: 8 multiplies ({fmul.how}), 4 adds ({fadd.how}), a {gb}-bit "
        f"gradient, a {wb}-bit weight and two float32 moments read, the weight and moments "
        f"written ({weight.how})")
    soft = (t.mul(wb, wb) * 2 + t.add(2 * wb) + weight * 2 + weight_w).named(
        f"soft update: 2 {wb}x{wb} multiplies, a {2 * wb}-bit add, 2 {wb}-bit words read, 1 "
        f"written")
    prng = (t.add(32) * 18 + t.add(20) * 11).named(
        "6 xorshift registers x 3 shift-xors (each a 32-bit add) + 11 adds of the 12 uniforms")
    vec = (t.add(2 * w) + buf_r + buf_w).named(f"a {2 * w}-bit add + a buffer word read and "
                                               f"written ({buf_r.how})")
    return {"pe_mac32": mac32, "pe_mac16": mac16, "adam_word": adam, "soft_word": soft,
            "prng_sample": prng, "vec_op": vec}

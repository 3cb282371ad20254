"""Prices of the ddpg family's energy actions, composed by the cost model
(:mod:`rlaccel.tlm.cost`) at the architecture's technology (the U50 of ``fixar.toml``).

* ``pe_mac32`` -- a 32 x 32 fixed-point MAC on the configurable PE (the FIXAR paper, Fig. 5): two
  32 x 16 multipliers (each on DSP slices), the shifted sum of their products and the
  accumulate, and the weight read from the weight memory (one word per MAC: an upper
  estimate, a weight row broadcast over a PE column is read once for the column);
* ``pe_mac16`` -- a 32 x 16 MAC: one multiplier and the accumulate, the weight read;
* ``adam_word`` -- one weight through the Adam unit in float32 (our section 13 of the
  machine's README): eight multiplies (g^2, the two moments' two products each, the step,
  and the square root and divide, each priced as one multiply: an iterative unit's order),
  four adds, and the gradient, both moments and the weight read, the moments and the weight
  written;
* ``soft_word`` -- ``w' = (1 - tau) w' + tau w``: two multiplies, an add, two words read and
  one written;
* ``prng_sample`` -- one Gaussian of the PRNG (:mod:`.prng`): six 32-bit xorshift steps of
  three shift-xors each (each priced as a 32-bit add) and the twelve-term sum of 16-bit
  uniforms;
* ``vec_op`` -- one element of the accumulator / activation unit: an add of the word and a
  buffer word read and written.
"""

from __future__ import annotations

__all__ = ["prices"]


def prices(cost) -> dict:
    k = cost.knobs
    w = cost.word_bits
    t = cost.tech
    half = t.mul(32, 16)
    weight, weight_w = cost.memory("synapse", k.synapse_words, "uram")
    buf_r, buf_w = cost.memory("buffer", max(k.buffer_words, 1), "bram")
    acc = t.add(2 * w)
    mac32 = (half * 2 + t.add(48) + acc + weight).named(
        f"two 32x16 multiplies ({half.how}) + their shifted sum (48-bit add) + the "
        f"{2 * w}-bit accumulate + a weight read ({weight.how})")
    mac16 = (half + acc + weight).named(
        f"a 32x16 multiply ({half.how}) + the {2 * w}-bit accumulate + a weight read")
    fmul, fadd = t.fmul(32), t.fadd(32)
    adam = (fmul * 8 + fadd * 4 + weight * 4 + weight_w * 3).named(
        f"float32 Adam step: 8 multiplies ({fmul.how}), 4 adds ({fadd.how}), 4 words read and "
        f"3 written ({weight.how})")
    soft = (t.mul(w, w) * 2 + t.add(2 * w) + weight * 2 + weight_w).named(
        f"soft update: 2 {w}x{w} multiplies, a {2 * w}-bit add, 2 words read, 1 written")
    prng = (t.add(32) * 18 + t.add(20) * 11).named(
        "6 xorshift registers x 3 shift-xors (each a 32-bit add) + 11 adds of the 12 uniforms")
    vec = (t.add(2 * w) + buf_r + buf_w).named(f"a {2 * w}-bit add + a buffer word read and "
                                               f"written ({buf_r.how})")
    return {"pe_mac32": mac32, "pe_mac16": mac16, "adam_word": adam, "soft_word": soft,
            "prng_sample": prng, "vec_op": vec}

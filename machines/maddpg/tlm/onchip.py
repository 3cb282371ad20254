"""The block RAMs one learner's design holds on chip, for given unroll factors.

Eq. 6 of the MADDPG paper counts one SRAM bank per multiply-add element (``C_SRAM = F``); a
synthesized design also keeps the optimiser's state and the buffers between its stages. Per
learner, with every stage's unroll factor ``F`` (:mod:`.dse`):

* **weight banks** -- every compute unit's layer matrix (``ID x OD`` fp32 words) partitioned
  into its ``F`` banks of ``ceil(ID OD / F)`` words; the WU units' banks hold the gradients
  they accumulate;
* **optimiser state** -- Adam's two moments of every weight, partitioned like the WU unit's
  gradients (two more sets of ``F`` banks per WU unit);
* **stage buffers** -- between consecutive stages a ping-pong pair of the vector one passes
  to the next (two samples of the producer's output: ``OD`` words after FP, ``ID`` after BP,
  one after LOSS);
* **skip FIFOs** -- a vector read by a later stage than the next one waits there for as many
  samples as the stages between: a layer's input from its FP stage to its WU stage (and to
  its BP stage, the ReLU mask), an error vector from where it arrives to its WU stage.

Each bank, buffer and FIFO takes whole 18-Kb halves of a 36-Kb block RAM (512 words of up to
36 bits, AMD UG573): ``ceil(words / 512)`` halves, 0.5 BRAM36 each. The batch itself is
streamed from the host a sample at a time and is not held on chip (a whole batch of the
learner's sample words would add ``B x words / 1024`` BRAM36; the summary's residual names it).
"""

from __future__ import annotations

from math import ceil

from rlaccel.util.errors import ArchError

__all__ = ["HALF_WORDS", "halves", "learner_brams", "ADAM_MOMENTS"]

#: 32-bit words in an 18-Kb half block RAM (512 x 36, AMD UG573)
HALF_WORDS = 512
#: optimiser words per weight beside the gradient: Adam's first and second moments
ADAM_MOMENTS = 2


def halves(words: int) -> int:
    """18-Kb halves of block RAM for one independently addressed memory of ``words``."""
    return ceil(words / HALF_WORDS) if words > 0 else 0


def _fifos(stages) -> list[tuple[int, int]]:
    """(depth in samples, width in words) of every skip FIFO of one pipeline."""
    index = {(s.kind, s.net, s.layer): i for i, s in enumerate(stages)}
    out = []
    for k, s in enumerate(stages):
        if s.kind not in ("BP", "WU"):
            continue
        fp = index.get(("FP", s.net, s.layer))
        # the layer's input: from its FP stage to the last of its BP and WU stages
        last = max(i for i, t in enumerate(stages) if t.net == s.net and t.layer == s.layer
                   and t.kind in ("BP", "WU"))
        reads_x = s.kind == "WU" or s.layer > 1       # a first layer's BP needs no mask
        if fp is not None and k == last and reads_x and last - fp > 1:
            out.append((last - fp, s.id))
        if s.kind == "WU":
            # the layer's output error: arrives at its BP stage, or leaves BP of the layer above
            src = index.get(("BP", s.net, s.layer))
            src = index.get(("BP", s.net, s.layer + 1)) if src is None else src
            if src is not None and k - src > 1:
                out.append((k - src, s.od))
    return out


def learner_brams(learner, factors: dict, moments: int = ADAM_MOMENTS) -> dict:
    """BRAM36s of one learner: ``{"banks", "optimiser", "buffers", "fifos", "total"}``;
    ``factors`` is ``{"value": [F, ...], "policy": [F, ...]}`` in stage order."""
    h = {"banks": 0, "optimiser": 0, "buffers": 0, "fifos": 0}
    for p in ("value", "policy"):
        stages, F = list(getattr(learner, p)), list(factors[p])
        if len(stages) != len(F):
            raise ArchError(f"learner {learner.name}: {len(F)} unroll factors for the "
                            f"{len(stages)} stages of its {p} pipeline")
        for s, f in zip(stages, F):
            per_bank = halves(ceil(s.work / f))
            h["banks"] += f * per_bank
            if s.kind == "WU":
                h["optimiser"] += moments * f * per_bank
        for s in stages[:-1]:
            if s.kind != "WU":
                width = {"FP": s.od, "BP": s.id}.get(s.kind, 1)
                h["buffers"] += halves(2 * width)
        h["fifos"] += sum(halves(d * w) for d, w in _fifos(stages))
    out = {k: v / 2 for k, v in h.items()}
    out["total"] = sum(out.values())
    return out

"""How much of the triple link's VU cycle gain comes from the actor loop's column-only BP.

    python bench/adhdp_residual.py [--report out/adhdp-report/report.json]

The programs back-propagate the actor's error through the critic's input layer for the
action's column only (``bp ... off=NX``, ``layout.inc``: one tile per row); a BP over the
whole input layer (``off=0``, every input's error, as a BP without an offset computes) costs
the tiles of all ``NX + 1`` columns. That work is the same with and without the virtual
update, so it dilutes the gain. Reading a report of ``rlaccel report adhdp``, this adds the
difference of the two BPs' issue cycles (:func:`rlaccel.tlm.families.base.timing.matrix_timing`,
stalls unchanged) to every actor iteration of both chips and prints the gains then, next to
the seed's 1.47x. It is an estimate from the timing formulas, not a run of another program.
"""

from __future__ import annotations

import argparse
import json
import sys

from rlaccel.isa.arch import load_arch
from rlaccel.programs.runner import configure
from rlaccel.programs.adhdp.report import SEED_SPEEDUP, SIZES
from rlaccel.tlm.families.base.timing import matrix_timing


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--report", default="out/adhdp-report/report.json")
    a = p.parse_args(argv)
    rep = json.loads(open(a.report).read())
    lanes = load_arch("adhdp").knobs.lanes
    print(f"{'network':16s} {'+cycles/actor it':>16s} {'actor':>12s} {'combined':>14s}")
    for size in SIZES:
        runs = {r["virtual_update"]: r for r in rep["runs"] if r["size"] == size.name}
        if len(runs) != 2:
            continue
        _, m = configure(size.manifest)
        nx, nhc = m["network"]["actor"][0], m["network"]["critic"][1]
        full = matrix_timing("bp", nhc, nx + 1, lanes, 1)[0]
        col = matrix_timing("bp", nhc, 1, lanes, 1)[0]
        extra = full - col

        def gain(add: float) -> tuple[float, float]:
            per = {}
            for vu, r in runs.items():
                reg = r["region"]
                it = reg["critic"]["iterations"] + reg["actor"]["iterations"]
                per[vu] = ((reg["critic"]["cycles"] * reg["critic"]["iterations"]
                            + (reg["actor"]["cycles"] + add) * reg["actor"]["iterations"]) / it,
                           reg["actor"]["cycles"] + add)
            return per[False][1] / per[True][1], per[False][0] / per[True][0]
        a0, c0 = gain(0)
        a1, c1 = gain(extra)
        print(f"{size.label:16s} {extra:16d} {a0:5.2f}->{a1:4.2f}x {c0:7.2f}->{c1:4.2f}x")
    print(f"seed (triple link, combined): {SEED_SPEEDUP['cycles']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the VU cycle gain comes from, per category, and what the paper's 1.47x would require.

    python machines/adhdp/bench/residual.py [--report out/adhdp-report/report.json]

Reads a report of ``rlaccel report adhdp`` and prints, for every network size and update
phase, the cycles per iteration (region) of the baseline and the VU chip by Fig. 11
category, and what the virtual update removes (baseline - VU) from each. For the
combined gain it then gives the two ways the paper's figure (1.47x on the triple link)
could be met with our numbers: the same saving on a longer baseline iteration (work the
virtual update cannot remove), or the same baseline with a smaller saving (a costlier
virtual update). This is arithmetic on measured figures, not another run: it sizes the
residual, it does not name its cause (``machines/adhdp/bench/causes.py`` measures the candidates one
knob at a time).
"""

from __future__ import annotations

import argparse
import json
import sys

from rlaccel.machines.adhdp.report import PHASES, PAPER_SPEEDUP, SIZES
from rlaccel.tlm.families.base.models import CATEGORIES


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--report", default="out/adhdp-report/report.json")
    a = p.parse_args(argv)
    rep = json.loads(open(a.report).read())
    print(f"{'network':16s} {'phase':6s} {'base':>6s} {'VU':>6s} {'gain':>6s}  removed by "
          f"category ({', '.join(CATEGORIES)})")
    for size in SIZES:
        runs = {r["virtual_update"]: r for r in rep["runs"] if r["size"] == size.name}
        if len(runs) != 2:
            continue
        tot = {False: [0.0, 0], True: [0.0, 0]}
        for phase in PHASES:
            b, v = runs[False]["region"][phase], runs[True]["region"][phase]
            removed = [b["by_category"][k]["cycles"] - v["by_category"][k]["cycles"]
                       for k in CATEGORIES]
            print(f"{size.label:16s} {phase:6s} {b['cycles']:6.1f} {v['cycles']:6.1f} "
                  f"{b['cycles'] / v['cycles']:5.2f}x  "
                  + " ".join(f"{x:+7.1f}" for x in removed))
            for vu, reg in ((False, b), (True, v)):
                tot[vu][0] += reg["cycles"] * reg["iterations"]
                tot[vu][1] += reg["iterations"]
        base, vu = (tot[k][0] / tot[k][1] for k in (False, True))
        g = PAPER_SPEEDUP["cycles"]
        print(f"{size.label:16s} {'both':6s} {base:6.1f} {vu:6.1f} {base / vu:5.2f}x  "
              f"saving {base - vu:.1f} cycles per iteration; {g}x would need a baseline of "
              f"{g * (base - vu) / (g - 1):.1f} cycles with that saving, or a saving of "
              f"{base * (1 - 1 / g):.1f} with that baseline")
    print(f"paper (triple link, combined): {PAPER_SPEEDUP['cycles']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

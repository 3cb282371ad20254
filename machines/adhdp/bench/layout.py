"""Synapse layout of the six ADHDP programs: packed (the model) against tile-aligned rows.

    python machines/adhdp/bench/layout.py [--trials 10] [--seed 1] [--json out/adhdp_layout.json]

The ADHDP paper (III-A) stores one tile of L weights per synapse-SRAM row and reads each row
once. The programs pack every matrix row after the previous one, so a row of ``n`` weights may
start mid-tile; the timing counts ``ceil(n / L)`` tiles per row either way. The model's
assumption (``docs/design.md``, "Synapse layout") is a banked SRAM: four
banks of 24-bit words, word ``a`` in bank ``a mod L``, so any L consecutive words are read in
one cycle, through a rotation network (a 4:1 multiplexer per word) that aligns them to the
lanes; ``sram_read``/``sram_write`` price that multiplexer as two 24-bit adds
(``tlm/families/base/energy.py``, priced by ``tlm/cost``).

For each program this prints the synapse words it uses packed, the words it would need with
tile-aligned matrix rows (each row padded to a whole number of tiles; the virtual-update
blocks packed, or padded too), whether that fits the paper's 512-word SRAM, and -- from a run
of ``--trials`` trials (``stop_on_success`` off) on its chip -- the energy the rotation
multiplexers cost, as a share of the synapse energy and of the whole run's.
"""

from __future__ import annotations

import argparse
import json
import sys
from math import ceil
from pathlib import Path

from rlaccel.assembler.assemble import assemble_file
from rlaccel.isa.arch import load_arch
from rlaccel.programs.runner import run
from rlaccel.isa.machine import machine

HERE = machine("adhdp").programs
#: (manifest, program, chip) of the six programs of Fig. 11-13
PROGRAMS = [(m, f"{s}{'_vu' if vu else ''}.s", "adhdp-vu" if vu else "adhdp")
            for m, s in (("cartpole.toml", "cartpole"),
                         ("cartpole_large.toml", "cartpole_large"),
                         ("triple_link.toml", "triple_link")) for vu in (False, True)]
#: the VU blocks of layout.inc (Lambda and o0, then E), used only by the VU programs
VU_BLOCKS = ("VA1", "EA1", "VC1", "EC1")


def layout(program: str, arch) -> dict:
    """Synapse words: packed, tile-aligned rows (VU blocks packed), everything aligned."""
    b = assemble_file(HERE / program, arch=arch).binary
    sym = {s.name: s for s in b.symbols}
    L = arch.knobs.lanes
    nx, nha, nhc = sym["X"].length, sym["HA"].length, sym["HC"].length
    shapes = {"WA1": (nha, nx), "WA2": (1, nha), "WC1": (nhc, nx + 1), "WC2": (1, nhc)}
    vu = "_vu" in program
    packed = sum(s.length for s in b.symbols if s.space == "synapse"
                 and (vu or s.name not in VU_BLOCKS))
    rows = sum(r * ceil(c / L) * L for r, c in shapes.values())
    blocks = [sym[n].length for n in VU_BLOCKS] if vu else []
    return {"packed": packed, "aligned_rows": rows + sum(blocks),
            "aligned_all": rows + sum(ceil(n / L) * L for n in blocks),
            "synapse_words": arch.knobs.synapse_words, "lanes": L}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default="out/adhdp_layout.json")
    a = p.parse_args(argv)
    rows = []
    print(f"{'program':24s} {'chip':9s} {'packed':>6s} {'aligned':>7s} {'all al.':>7s} "
          f"{'fits':>5s} {'mux/synapse':>11s} {'mux/total':>9s}")
    for manifest, program, chip in PROGRAMS:
        arch = load_arch(chip)
        lay = layout(program, arch)
        r = run(HERE / manifest, ["stop_on_success=false",
                                  f"virtual_update={'true' if '_vu' in program else 'false'}"],
                arch=chip, seed=a.seed, trials=a.trials)
        # the rotation multiplexer: a 4:1 multiplexer per word, two levels each priced as a
        # word-wide add (tlm/cost's mux, part of the run's sram_read and sram_write prices);
        # the baseline chip's add (the VU chip's carries its two 2:1 multiplexers too; each
        # VU program follows its baseline in PROGRAMS)
        if chip == "adhdp":
            add_pj = r["energy_model"]["prices_pj"]["add"]
        mux_pj = 2 * add_pj * (
            r["actions"]["sram_read"] + r["actions"]["sram_write"])
        row = {"program": program, "chip": chip, **lay,
               "fits_aligned": lay["aligned_rows"] <= lay["synapse_words"],
               "mux_pj": mux_pj, "synapse_pj": r["by_unit_pj"]["synapse"],
               "energy_pj": r["energy_pj"]}
        rows.append(row)
        print(f"{program:24s} {chip:9s} {lay['packed']:6d} {lay['aligned_rows']:7d} "
              f"{lay['aligned_all']:7d} {str(row['fits_aligned']):>5s} "
              f"{mux_pj / row['synapse_pj']:11.1%} {mux_pj / row['energy_pj']:9.2%}",
              flush=True)
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps({"trials": a.trials, "seed": a.seed, "rows": rows},
                                       indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

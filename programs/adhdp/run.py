"""Run an ADHDP manifest on the simulator: assemble, load, train against the plant, report.

``run(manifest)`` returns the JSON-able report; ``rlaccel run MANIFEST`` prints its summary.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Callable

import numpy as np

from assembler.assemble import assemble_file
from assembler.rlb import atomic_write
from isa.arch import load_arch
from isa.dtypes import get_dtype
from programs.manifest import ManifestError, load_manifest
from tlm.results import region_from_labels
from tlm.system import System
from tlm.trace import ChromeTrace

from .host import AdhdpHost, LearningConfig, Trials

__all__ = ["SCHEMA", "run", "configure", "program_path", "learning_config"]

SCHEMA = {
    "family": "adhdp", "arch": "adhdp", "program": "", "program_vu": "",
    "virtual_update": False, "environment": "", "environment_kwargs": {"__free__": True},
    "trials": 100, "max_steps": 1000, "stop_on_success": True, "seed": 1,
    "network": {"actor": [4, 6, 1], "critic": [5, 6, 1]},
    # chip-side constants (passed to the program as defines) and the host's schedule, whose
    # defaults are LearningConfig's
    "learning": {"gamma": 0.95, "Ic": 50, "Ia": 100, "Ec": 0.05, "Ea": 0.005,
                 "init_weight": 1.0,
                 **{f.name: f.default for f in fields(LearningConfig)
                    if f.name.startswith("lr_")}},
    "regions": {"__free__": True},
    "hostlink": {"__free__": True},
}


def configure(manifest: str | Path, overrides: list[str] | None = None, *,
              arch: str | None = None, seed: int | None = None, trials: int | None = None
              ) -> dict:
    """The validated manifest with the command line's overrides applied."""
    m = load_manifest(manifest, SCHEMA, overrides)
    if m["family"] != "adhdp":
        raise ManifestError(f"{m['__path__']}: family '{m['family']}' is not run by the ADHDP "
                            f"runner")
    if arch is not None:
        m["arch"] = arch
    if seed is not None:
        m["seed"] = seed
    if trials is not None:
        m["trials"] = trials
    for key in ("trials", "max_steps"):
        if m[key] < 1:
            raise ManifestError(f"{m['__path__']}: '{key}' must be at least 1")
    return m


def _defines(m: dict) -> dict:
    lr = m["learning"]
    return {"SEED": m["seed"], "IC": lr["Ic"], "IA": lr["Ia"], "GAMMA": lr["gamma"],
            "EC_TH": lr["Ec"], "EA_TH": lr["Ea"], "W0": lr["init_weight"]}


def _check_network(m: dict, binary) -> None:
    sym = {s.name: s for s in binary.symbols}
    nx, nha, nhc = sym["X"].length, sym["HA"].length, sym["HC"].length
    got = {"actor": [nx, nha, 1], "critic": [nx + 1, nhc, 1]}
    for net in ("actor", "critic"):
        if list(m["network"][net]) != got[net]:
            raise ManifestError(f"{m['__path__']}: network.{net} = {m['network'][net]} but the "
                                f"program's {net} is {'-'.join(map(str, got[net]))}")


def program_path(m: dict) -> Path:
    """The program a manifest runs (Fig. 7 when virtual_update is on)."""
    return Path(m["__path__"]).parent / (m["program_vu"] if m["virtual_update"] else
                                         m["program"])


def learning_config(m: dict) -> LearningConfig:
    """The host-side knobs of a manifest."""
    lr = m["learning"]
    return LearningConfig(env_id=m["environment"], env_kwargs=m["environment_kwargs"],
                          trials=m["trials"], max_steps=m["max_steps"],
                          stop_on_success=m["stop_on_success"], lr_critic=lr["lr_critic"],
                          lr_actor=lr["lr_actor"], lr_decay=lr["lr_decay"],
                          lr_every=lr["lr_every"], lr_threshold=lr["lr_threshold"],
                          lr_floor=lr["lr_floor"], seed=m["seed"])


def run(manifest: str | Path, overrides: list[str] | None = None, *, arch: str | None = None,
        seed: int | None = None, trials: int | None = None, trace_path: str | None = None,
        json_path: str | None = None, progress: Callable[[str], None] | None = None,
        datapath=None) -> dict:
    """Assemble and run a manifest; returns the report (and writes it to ``json_path``)."""
    m = configure(manifest, overrides, arch=arch, seed=seed, trials=trials)
    program = program_path(m)
    the_arch = load_arch(m["arch"])
    asm = assemble_file(program, arch=the_arch, defines=_defines(m))
    _check_network(m, asm.binary)
    trials_ = Trials(learning_config(m))
    dt = get_dtype(the_arch.knobs.dtype)
    host = AdhdpHost(trials_, asm.binary, dt)
    trace = ChromeTrace(the_arch.knobs.clock_mhz) if trace_path else None

    reported = [0]

    def tick():
        if progress is None:
            return
        while reported[0] < len(trials_.steps):
            i = reported[0]
            n, failed = trials_.steps[i], trials_.failed[i]
            progress(f"trial {i + 1:4d}: {n:5d} steps {'(failed)' if failed else '(success)'}")
            reported[0] += 1

    regions = {}                      # checked before the run, used after it
    for name, labels in m["regions"].items():
        if not (isinstance(labels, list) and len(labels) == 3
                and all(isinstance(x, str) for x in labels)):
            raise ManifestError(f"{m['__path__']}: regions.{name} must be three labels: "
                                f"first, end, and the first instruction of the loop body")
        regions[name] = region_from_labels(asm.binary, name, *labels)
    system = System(the_arch, asm.binary, host, trace=trace, progress=tick, datapath=datapath)
    res = system.run()
    tick()
    regions = {name: res.region(r) for name, r in regions.items()}
    report = {
        "manifest": m["__path__"], "arch": the_arch.name, "program": str(program),
        "virtual_update": m["virtual_update"], "seed": m["seed"],
        "program_bytes": (asm.binary.n_instructions * asm.encoding.instr_bits + 7) // 8,
        **res.as_dict(),
        "per_iteration": regions,
        "learning": trials_.learning(),
        "hostlink": {"exchanges": system.link.exchanges, "words_out": system.link.words_out,
                     "words_in": system.link.words_in, "cycles": system.link.cycles},
        "env_steps_per_s": (sum(trials_.steps) / res.time_s) if res.time_s else 0.0,
    }
    if trace is not None:
        trace.write(trace_path)
    if json_path:
        _write_json(json_path, report)
    return report


def _write_json(path: str, report: dict) -> None:
    atomic_write(path, json.dumps(report, indent=1, default=_jsonable))


def _jsonable(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    raise TypeError(type(o))

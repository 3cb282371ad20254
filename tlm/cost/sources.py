"""The rule for the cost constants of an architecture: each names its source, and no source
is the machine's own paper's result or a fit to one.

The constants judged:

* every energy price (derived: the sentence of its derivation, the references of the
  primitives it rests on; stated in ``[energy]``: its ``[energy_sources]`` sentence);
* every ``[resources.NAME]`` unit (its ``source``) and every count name ``[resources]``
  states (``actions = 4``: its ``[sources]`` sentence, ``"resources.actions"``);
* every number of the ``[timing]``, ``[hostlink]``, ``[interconnect]`` and ``[device]``
  tables (latencies, widths, host and link figures, the device's budgets), whose sentences
  are in the ``[sources]`` table under ``"TABLE.KEY"`` (``"device.slr"`` for the SLR list),
  and any other ``"TABLE.KEY"`` the ``[sources]`` table names (MADDPG's ``[learner]``
  passes, say), which must exist.

A source fails when it says it was fitted or calibrated (:data:`~.model.FITTED`) or names the
machine's own paper (``own``: its authors or its result tables, :func:`problems`), except
that an input describing the experiment rather than the machine (:data:`INPUTS`: the host's
work per exchange) may cite the paper's description of its host.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from rlaccel.tlm.cost.model import FITTED

__all__ = ["problems", "COVERED", "INPUTS", "stated_sources"]

#: the tables every number of which needs a ``[sources]`` sentence
COVERED = ("timing", "hostlink", "interconnect", "device")
#: constants that describe the experiment, not the machine: their source may be the paper's
INPUTS = ("hostlink.host_cycles",)


def _numbers(table: dict, prefix: str) -> Iterable[str]:
    for key, v in table.items():
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            yield f"{prefix}.{key}"
        elif isinstance(v, Mapping):
            yield from _numbers(v, f"{prefix}.{key}")
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v):
            yield f"{prefix}.{key}"


def stated_sources(arch) -> dict:
    """Every cost constant's source sentence: ``{what: sentence}``."""
    from rlaccel.tlm.families import models_for
    from rlaccel.tlm.cost.model import derive_energy
    out = {}
    _, fams = models_for(arch.knobs.families)
    unit_of = {a: u for f in fams for a, u in f.actions.items()}
    model = derive_energy(arch, fams, unit_of)
    for key, sentence in model.sources.items():
        out[f"energy.{key}"] = sentence
    for key in model.fitted:
        out[f"energy.{key}"] = out.get(f"energy.{key}", "") + " (fitted)"
    src = arch.extra.get("sources", {})
    for name, row in arch.extra.get("resources", {}).items():
        if isinstance(row, Mapping):
            out[f"resources.{name}"] = row.get("source", "")
        else:                           # a count name: its sentence is in [sources]
            out[f"resources.{name}"] = src.get(f"resources.{name}", "")
    for key, sentence in src.items():
        out[key] = sentence
    return out


def problems(arch, own: Iterable[str] = (), tables: Iterable[str] = COVERED) -> list[str]:
    """What breaks the rule in ``arch`` (empty: nothing); ``own`` are patterns (regular
    expressions, case-insensitive) that name the machine's own paper; ``tables`` are those
    every number of which needs a source (:data:`COVERED`, or more: a machine's latencies)."""
    where = arch.origin
    bad = []
    src = arch.extra.get("sources", {})
    if not isinstance(src, Mapping):
        return [f"{where}: [sources] must be a table of 'TABLE.KEY' = sentence"]
    for table in tables:
        t = arch.extra.get(table)
        if isinstance(t, Mapping):
            for key in _numbers(t, table):
                if not isinstance(src.get(key), str):
                    bad.append(f"{where}: {key} = {_value(arch, key)!r} names no source "
                               f"([sources] \"{key}\")")
    for key in src:
        if _value(arch, key) is None:
            bad.append(f"{where}: [sources] \"{key}\" names no constant of the architecture")
    own_re = [re.compile(p, re.IGNORECASE) for p in own]
    for what, sentence in stated_sources(arch).items():
        if not isinstance(sentence, str) or len(sentence.split()) < 3:
            bad.append(f"{where}: {what}: no source (say where the figure comes from)")
            continue
        if FITTED.search(sentence):
            bad.append(f"{where}: {what}: its source says it was fitted or calibrated: "
                       f"{sentence[:160]}")
        for r in ([] if what in INPUTS else own_re):
            if r.search(sentence):
                bad.append(f"{where}: {what}: its source is the machine's own paper "
                           f"('{r.pattern}'): {sentence[:160]}")
                break
    return bad


def _value(arch, key: str):
    node = arch.extra
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node

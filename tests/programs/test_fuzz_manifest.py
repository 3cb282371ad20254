"""The manifest loader against hostile files: every machine's manifests with keys set to
values of the wrong type or range, deleted or added, and hostile ``--set`` overrides, give a
ManifestError (or another RlaccelError naming what is wrong) or a validated manifest --
never another exception, within a time budget."""

from __future__ import annotations

import math
import tempfile
import time
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import RlaccelError
from rlaccel.programs.runner import configure

from tests.util.tomlgen import mutated_table, toml_text
from rlaccel.isa.machine import machines

TABLES = [t for t in (tomllib.loads(p.read_text()) for p in sorted(p for m in machines().values() for p in m.programs.glob("*.toml")))
          if "machine" in t]
#: CPU seconds one fuzzed input may take (CPU, so a loaded machine's waits are no hang)
BUDGET_S = 5.0
DIR = Path(tempfile.mkdtemp(prefix="rlaccel-fuzz-manifest-"))


def _finite(v) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(_finite(x) for k, x in v.items() if k != "environment_kwargs")
    if isinstance(v, list):
        return all(_finite(x) for x in v)
    return True


def _configure(text: str, overrides: list[str]) -> None:
    path = DIR / "m.toml"
    path.write_text(text)
    start = time.process_time()
    try:
        plugin, m = configure(path, overrides)
        load_arch(m["arch"])
    except RlaccelError as exc:
        assert str(exc).strip(), "an error without a message"
    else:
        assert _finite(m), m
    assert time.process_time() - start < BUDGET_S


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_table(TABLES))
def test_a_mutated_manifest_validates_or_is_refused(table):
    _configure(toml_text(table), [])


keys = st.sampled_from(["seed", "trials", "steps", "learning.lr_every", "learning.gamma",
                        "learning.lr", "learning.batch", "network.actor", "arch", "program",
                        "machine", "regions.x", "environment", "episodes", "x.y.z", "", ".",
                        "learning..a"])
texts = st.one_of(st.text(max_size=10), st.sampled_from(
    ["nan", "inf", "-inf", "1e400", "0", "-1", "99999999999999999999", "[1,2", "{a=1}",
     "true", '"adhdp"', "[]", "1.5"]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TABLES), st.lists(st.tuples(keys, texts), min_size=1, max_size=3))
def test_hostile_overrides_validate_or_are_refused(table, sets):
    _configure(toml_text(table), [f"{k}={v}" for k, v in sets])

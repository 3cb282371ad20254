"""The architecture loader against hostile files: every installed architecture with keys set
to values of the wrong type or range, deleted or added gives an ArchError (an RlaccelError
naming the file) or an architecture that every verb can use -- never another exception,
never a NaN, within a time budget."""

from __future__ import annotations

import math
import tempfile
import time
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from rlaccel.isa.arch import arch_files, load_arch
from rlaccel.isa.doc import summary
from rlaccel.isa.encoding import encoding_for
from rlaccel.util.errors import RlaccelError
from rlaccel.tlm.arch_check import check_arch

from tests.util.tomlgen import mutated_table, toml_text

TABLES = [tomllib.loads(p.read_text()) for p in arch_files().values()]
#: CPU seconds one fuzzed input may take (CPU, so a loaded machine's waits are no hang)
BUDGET_S = 5.0
DIR = Path(tempfile.mkdtemp(prefix="rlaccel-fuzz-arch-"))


def _finite(v) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return all(_finite(x) for x in v)
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_table(TABLES))
def test_a_mutated_architecture_loads_or_is_refused(table):
    path = DIR / "a.toml"
    path.write_text(toml_text(table))
    start = time.process_time()
    try:
        arch = load_arch(path)
        encoding_for(arch)
        summary(arch, ())
        check_arch(arch)                     # the simulator's tables, as every verb judges them
    except RlaccelError as exc:
        assert "a.toml" in str(exc) or "architecture" in str(exc), str(exc)
    else:
        assert math.isfinite(arch.knobs.clock_mhz) and _finite(dict(arch.extra))
    assert time.process_time() - start < BUDGET_S

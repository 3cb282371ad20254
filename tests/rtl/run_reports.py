"""Comparing a ``rlaccel run --rtl`` report with the pure-TLM run's: every field but the
wall-clock ones, which each test names (what this host measured: the simulator's speed, the
host's environment and sampling times, and figures computed from them)."""

import re


def flatten(report, prefix: str = "") -> dict:
    """``{"a.b[0].c": value}`` for every leaf of a report."""
    out = {}
    if isinstance(report, dict):
        for k, v in report.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(report, list) and any(isinstance(v, (dict, list)) for v in report):
        for i, v in enumerate(report):
            out.update(flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = report
    return out


def differences(a: dict, b: dict, wall_clock: tuple) -> list:
    """The fields where two reports differ, leaving out the ``wall_clock`` ones: a field's
    name with ``[*]`` for any list index, or a prefix ending in ``.*``
    (``timing.host.agents[*].timeline.measured_s.*``)."""
    fa, fb = flatten(a), flatten(b)

    def wall(key: str) -> bool:
        k = re.sub(r"\[\d+\]", "[*]", key)
        return any(k == p or (p.endswith(".*") and k.startswith(p[:-1])) for p in wall_clock)

    return [(k, fa.get(k, "<missing>"), fb.get(k, "<missing>"))
            for k in sorted(set(fa) | set(fb))
            if fa.get(k, "<missing>") != fb.get(k, "<missing>") and not wall(k)]


def rtl_run(transactor_cls, manifest, overrides, fault=None, **kw):
    """``run(manifest, overrides, datapath=T)`` with a fresh transactor ``T`` (its ``fault``,
    a test's injected difference, set) closed afterwards: the report and the transactor."""
    from rlaccel.programs.runner import run
    t = transactor_cls()
    t.fault = fault
    try:
        return run(manifest, overrides, datapath=t, **kw), t
    finally:
        t.close()

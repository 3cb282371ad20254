"""The terminal summary of a run: one common block for every machine, then the machine's lines.

    print(summary(report))

The common block gives, with units, what every run has: the program, architecture and seed;
the simulated cycles and time; the energy and the average power; the utilisation the machine
names; the throughput measure of the machine's paper; the run's wall time (beside the
simulation loop's) and the environment steps it took per second of it. A machine's plug-in
says where its figures are in the report (:meth:`~rlaccel.programs.plugin.Plugin.headline`,
a :class:`Headline`); the default reads what the runner and the platform record for every
machine. A figure a run does not have is left out or says why; no line prints ``None``.
"""

from __future__ import annotations

from rlaccel.programs.headline import Headline, Throughput, measured

__all__ = ["Headline", "Throughput", "measured", "common_block", "summary", "si", "seconds_text"]


#: SI prefixes from pico to tera
_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"),
             (1e-6, "u"), (1e-9, "n"), (1e-12, "p"))


def si(value: float, unit: str, digits: int = 4) -> str:
    """A value with an SI prefix and ``digits`` significant digits: ``si(1.2e-5, "J")`` is
    ``12.00 uJ``; ``si(0, "W")`` is ``0 W``."""
    if value == 0:
        return f"0 {unit}"
    mag = abs(value)
    scale, prefix = next(((s, p) for s, p in _PREFIXES if mag >= s), _PREFIXES[-1])
    v = float(f"{value / scale:.{digits}g}")         # rounded first: 99.99999 MHz is 100.0
    whole = len(str(int(abs(v))))
    return f"{v:,.{max(digits - whole, 0)}f} {prefix}{unit}"


def seconds_text(s: float) -> str:
    """Wall time as a person reads it: ``0.84 s``, ``12.3 s``, ``3 min 05 s``, ``1 h 02 min``."""
    if s < 10:
        return f"{s:.2f} s"
    if s < 60:
        return f"{s:.1f} s"
    m, sec = divmod(round(s), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def _percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def common_block(r: dict, h: Headline) -> list[str]:
    """The common block's lines of a report ``r`` with its plug-in's :class:`Headline`."""
    cycles, time_s = r["cycles"], r["time_s"]
    clock = f" at {si(cycles / time_s, 'Hz')}" if time_s else ""
    lines = [f"{r['machine']}: {r['program']} on {r['arch']}, seed {r['seed']}",
             f"  simulated:   {cycles:,} cycles = {si(time_s, 's')}{clock}, "
             f"{r['instructions']:,} instructions",
             f"  energy:      {si(r['energy_pj'] * 1e-12, 'J')}, average power "
             f"{si(r['power_mw'] * 1e-3, 'W')}"]
    if h.utilisation:
        lines.append("  utilisation: " + ", ".join(f"{what} {_percent(x)}"
                                                   for what, x in h.utilisation.items()))
    t = h.throughput
    lines.append(f"  throughput:  {t.name} {t.value:,.1f} {t.unit}"
                 + (f" ({t.note})" if t.note else "") if t is not None else
                 f"  throughput:  not given ({h.no_throughput})")
    sim = r["timing"]["sim"]
    wall, loop = sim.get("run_wall_s", sim["wall_s"]), sim["wall_s"]
    if h.env_steps is None:
        steps = f"{h.steps_what} not counted ({h.steps_note})"
    else:
        rate = f", {h.env_steps / wall:,.0f} per second of wall time" if wall > 0 else ""
        steps = f"{h.env_steps:,} {h.steps_what}{rate}"
    lines.append(f"  simulator:   {seconds_text(wall)} wall ({seconds_text(loop)} in the "
                 f"simulation loop); {steps}")
    return lines


def summary(report: dict, plugin=None) -> str:
    """The terminal summary of a run's report: the common block, then the machine's own lines
    (``plugin.summary``); ``plugin`` defaults to the one the report's machine names."""
    if plugin is None:
        from rlaccel.programs.plugin import load_plugin
        plugin = load_plugin(report["machine"])
    return "\n".join(common_block(report, plugin.headline(report)) + [plugin.summary(report)])

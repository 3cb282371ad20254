"""Run any machine's manifest on the simulator: the plumbing every machine shares.

    report = run("machines/adhdp/programs/cartpole.toml", ["learning.Ic=80"], seed=4)

The manifest's ``machine`` picks the plugin (:mod:`.plugin`); the runner reads and validates
the manifest against the plugin's schema with the overrides applied, loads the architecture,
lets the plugin name the program, its defines and its hosts, assembles the program, checks
the manifest's ``[regions]`` against the binary's labels, builds the
:class:`~rlaccel.tlm.platform.Platform`, runs it, and assembles the report: the platform's
results, the regions' per-iteration figures and the plugin's own fields. The report is
written as JSON (``json_path``) and the trace as Perfetto JSON (``trace_path``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from pathlib import Path
from typing import Callable

import numpy as np

from rlaccel.assembler.assemble import assemble_file
from rlaccel.assembler.expand import expand_with_texts
from rlaccel.assembler.rlb import dumps
from rlaccel.assembler.variants import Variants
from rlaccel.isa.arch import load_arch
from rlaccel.tlm.platform import Platform
from rlaccel.tlm.results import merge_timing, region_from_labels
from rlaccel.tlm.trace import ChromeTrace
from rlaccel.util.errors import AsmError, RlaccelError
from rlaccel.util.files import (atomic_write, check_outputs, read_text, read_toml,
                                save_or_rescue)
from rlaccel.util.version import versions

from rlaccel.programs.arch_variant import arch_variant
from rlaccel.programs.manifest import ManifestError, apply_overrides, load_manifest
from rlaccel.programs.manifest_source import manifest_source
from rlaccel.programs.plugin import Plugin, load_plugin

__all__ = ["run", "run_batch", "configure", "plugin_of", "write_json", "json_text",
           "named_inputs", "program_inputs", "manifest_inputs"]


def plugin_of(manifest: str | Path, overrides: list[str] | None = None) -> Plugin:
    """The plugin a manifest (with its overrides) names."""
    raw = apply_overrides(read_toml(Path(manifest), ManifestError, "manifest"), overrides or [],
                          str(manifest))
    if "machine" not in raw:
        if "family" in raw:
            raise ManifestError(f"{manifest}: the key 'family' is now called 'machine' "
                                f"(machine = {raw['family']!r})")
        raise ManifestError(f"{manifest}: missing 'machine' (which machine runs it, for "
                            f"example machine = \"adhdp\")")
    return load_plugin(raw["machine"], str(manifest))


def configure(manifest: str | Path, overrides: list[str] | None = None, *,
              arch: str | None = None, seed: int | None = None,
              arch_overrides: dict | None = None, **options) -> tuple[Plugin, dict]:
    """The plugin and the validated manifest with the command line's values applied
    (``options``: the machine's ``run_options`` such as ``trials`` or ``steps``;
    ``arch_overrides``: ``{"TABLE.KEY": value}`` knobs changed on the architecture, which
    then names a variant file, :func:`~rlaccel.programs.arch_variant.arch_variant`)."""
    plugin = plugin_of(manifest, overrides)
    m = load_manifest(manifest, plugin.full_schema(), overrides)
    if arch is not None:
        m["arch"] = arch
    if arch_overrides:
        m["arch"] = arch_variant(m["arch"], arch_overrides)
    if seed is not None:
        m["seed"] = seed
    for option, value in options.items():
        if value is None:
            continue
        key = plugin.run_options.get(option)
        if key is None:
            raise ManifestError(f"--{option}: the {plugin.machine} machine does not take it "
                                f"(its options: "
                                f"{', '.join('--' + o for o in plugin.run_options) or 'none'})")
        m[key] = value
    plugin.validate(m)
    return plugin, m


def program_inputs(path: str | Path, label: str = "the program") -> list[tuple[str, str]]:
    """A program and the files it includes (found without assembling it: no defines are
    needed); a program that cannot be read or parsed is left to the assembler to report."""
    out = [(label, str(path))]
    try:
        _, _, _, shown = expand_with_texts(read_text(path, "source file", AsmError),
                                           str(path))
    except RlaccelError:
        return out
    return out + [("the include file", f) for f in shown]      # named as the assembler does


def named_inputs(plugin: Plugin, m: dict) -> list[tuple[str, str]]:
    """Every file a validated manifest names, whether this run reads it or not (an output
    must not overwrite any of them): the manifest, the file of every ``program*`` key
    (``program_vu``, ``program_dense``...) with its include files, and the architecture
    file."""
    out = [("the manifest", str(m["__path__"]))]
    where = Path(m["__path__"]).parent
    for key in plugin.full_schema():
        if key.startswith("program") and isinstance(m.get(key), str) and m[key]:
            out += program_inputs(where / m[key], "the program" if key == "program" else
                                  f"the program ({key})")
    try:
        path = load_arch(m["arch"]).path
    except RlaccelError:
        path = None                      # the run itself says why
    if path:
        out.append(("the architecture file", str(path)))
    return out


def manifest_inputs(manifest: str | Path, overrides: list[str] | None = None
                    ) -> list[tuple[str, str]]:
    """:func:`named_inputs` of a manifest as given (only the manifest itself when it does
    not configure: its run says why)."""
    try:
        return named_inputs(*configure(manifest, overrides))
    except RlaccelError:
        return [("the manifest", str(manifest))]


def _regions(m: dict, binary) -> dict:
    regions = {}
    for name, labels in m["regions"].items():
        if not (isinstance(labels, list) and len(labels) == 3
                and all(isinstance(x, str) for x in labels)):
            raise ManifestError(f"{m['__path__']}: regions.{name} must be three labels: "
                                f"first, end, and the first instruction of the loop body")
        regions[name] = region_from_labels(binary, name, *labels)
    return regions


def _check_program_arch(m: dict, arch, asm) -> None:
    """A program written for one architecture (its ``.arch``) runs on that architecture or
    on one that inherits from it (a variant with other knobs), not on an unrelated one."""
    if asm.source_arch is None:
        return
    name, loc = asm.source_arch
    if not arch.derives_from(name):
        raise ManifestError(
            f"{m['__path__']}: arch = '{m['arch']}'"
            f"{'' if arch.name == m['arch'] else f' ({arch.name})'}, but the program "
            f"{loc.file}:{loc.line} is written for '{name}', and '{arch.name}' does not "
            f"inherit from it; set arch = \"{name}\" (or an architecture that inherits from "
            f"it) in the manifest, or pass --arch to run it on another one anyway")


class _Setup:
    """One run, ready to simulate: the plugin, manifest, architecture, plugin's run, binary,
    regions and platform."""

    def __init__(self, manifest, overrides, *, arch, seed, trace, progress, datapath, kernels,
                 options, arch_overrides=None, configured=None, assemble=assemble_file,
                 like=None, meter=None):
        if configured is None:
            configured = configure(manifest, overrides, arch=arch, seed=seed,
                                   arch_overrides=arch_overrides, **options)
        self.plugin, self.m = configured
        # a batch member (``like``: its first member's platform) runs the first's architecture
        self.arch = like.arch if like is not None else load_arch(self.m["arch"])
        self.r = self.plugin.prepare(self.m, self.arch)
        per_agent = self.r.agent_defines
        if per_agent is None:
            self.asms = [assemble(self.r.program, arch=self.arch, defines=self.r.defines)]
        else:       # one binary per agent, each with its own defines (plugin.Run)
            self.asms = [assemble(self.r.program, arch=self.arch,
                                       defines={**self.r.defines, **d}) for d in per_agent]
        self.asm = self.asms[0]
        if arch is None:            # --arch is the user's choice; the manifest's must fit
            _check_program_arch(self.m, self.arch, self.asm)
        binaries = self.asm.binary if per_agent is None else [a.binary for a in self.asms]
        self.plugin.bind(self.m, self.r, binaries, self.arch)
        self.regions = _regions(self.m, self.asm.binary)   # checked before the run
        self.progress = progress
        self.meter = meter
        self.kernels = kernels
        self.wall = time.perf_counter()
        self.platform = Platform(self.arch, binaries, self.r.hosts, trace=trace,
                                 progress=self.tick, datapath=datapath, kernels=kernels,
                                 like=like)

    def inputs(self) -> list[tuple[str, str]]:
        """Every file the run reads: the manifest, each program and its include files and
        the architecture file (outputs must not be any of them)."""
        out = [("the manifest", str(self.m["__path__"]))]
        for a in self.asms:
            if a.inputs:
                out.append(("the program", a.inputs[0]))
                out += [("the include file", p) for p in a.inputs[1:]]
        if self.arch.path:
            out.append(("the architecture file", self.arch.path))
        return out

    def sha256(self) -> str:
        """The binary's sha256 (with one binary per agent: of their bytes in agent order)."""
        h = hashlib.sha256()
        for a in self.asms:
            h.update(dumps(a.binary))
        return h.hexdigest()

    def tick(self):
        """At every host exchange: the plugin's new progress lines, and how far the run has
        gone (:meth:`Plugin.progress_position`) for the progress bar."""
        if self.progress is not None:
            for line in self.plugin.progress(self.r):
                self.progress(line)
        if self.meter is not None:
            self.meter(*self.position())

    def position(self) -> tuple[int, int | None, str]:
        return self.plugin.progress_position(self.m, self.r, self.platform)

    def report(self, res) -> dict:
        m, plugin = self.m, self.plugin
        report = {
            "manifest": m["__path__"], "machine": plugin.machine,
            "family": plugin.machine,          # the machine's former name, for older readers
            "arch": self.arch.name,
            "program": str(self.r.program), "seed": m["seed"],
            "program_bytes": max((a.binary.n_instructions * a.encoding.instr_bits + 7) // 8
                                 for a in self.asms),
            "binary_sha256": self.sha256(),
            **res.as_dict(),
            "per_iteration": {name: res.region(reg) for name, reg in self.regions.items()},
        }
        timing = report.pop("timing")
        own = plugin.results(m, self.r, res, self.platform)
        merge_timing(timing, own.pop("timing", {}))
        report.update(own)
        report["sim"]["kernels"] = self.kernels
        report["versions"] = versions()            # of rlaccel, Python and what it ran on
        timing["sim"]["run_wall_s"] = time.perf_counter() - self.wall
        report["timing"] = timing                  # last: everything measured, in one place
        return report


def run(manifest: str | Path, overrides: list[str] | None = None, *, arch: str | None = None,
        seed: int | None = None, trace_path: str | None = None, json_path: str | None = None,
        progress: Callable[[str], None] | None = None, datapath=None, kernels: str = "compiled",
        arch_overrides: dict | None = None, checkpoint: str | Path | None = None,
        checkpoint_every: int = 10_000, trace_max_events: int | None = None,
        trace_window_us: tuple[float, float] | None = None,
        meter: Callable[[int, int | None, str], None] | None = None, **options) -> dict:
    """Assemble and run a manifest; returns the report (and writes it to ``json_path``).
    ``progress`` receives the plugin's progress lines (a finished trial, an episode) and
    ``meter`` how far the run has gone, ``(done, total, unit)``, at every host exchange
    (:class:`rlaccel.util.progress.ProgressBar` draws both).
    ``kernels`` picks the simulator's loop (:data:`rlaccel.tlm.controller.KERNELS`);
    ``arch_overrides`` changes architecture knobs (:func:`configure`); ``checkpoint``: save
    the run to this file every ``checkpoint_every`` host exchanges and resume from it
    (:mod:`.checkpoint`). The trace keeps every event unless ``trace_max_events`` caps it or
    ``trace_window_us`` (simulated microseconds, from, to) picks a span; the report's
    ``sim.trace`` counts what it kept and left out. ``manifest`` may be a dict of the manifest's keys
    (:mod:`.manifest_source`)."""
    if not isinstance(manifest, (str, Path)):
        with manifest_source(manifest) as path:
            return run(path, overrides, arch=arch, seed=seed, trace_path=trace_path,
                       json_path=json_path, progress=progress, datapath=datapath,
                       kernels=kernels, arch_overrides=arch_overrides, checkpoint=checkpoint,
                       checkpoint_every=checkpoint_every, trace_max_events=trace_max_events,
                       trace_window_us=trace_window_us, meter=meter, **options)
    outputs = {"--json": json_path, "--trace": trace_path, "--checkpoint": checkpoint}
    check_outputs(outputs, {"the manifest": manifest})          # before any work
    plugin, m = configure(manifest, overrides, arch=arch, seed=seed,
                          arch_overrides=arch_overrides, **options)
    writes = any(p is not None for p in outputs.values())
    named = named_inputs(plugin, m) if writes else []          # (read only to be checked)
    check_outputs(outputs, named)                               # every file it names
    trace = _trace(load_arch(m["arch"]).knobs.clock_mhz, trace_max_events,
                   trace_window_us) if trace_path else None
    s = _Setup(manifest, overrides, arch=arch, seed=seed, trace=trace, progress=progress,
               datapath=datapath, kernels=kernels, options=options,
               arch_overrides=arch_overrides, meter=meter, configured=(plugin, m))
    if writes:                                  # the program and its includes are known now
        check_outputs(outputs, named + s.inputs())
    if checkpoint is not None:
        if trace is not None or datapath is not None or kernels != "compiled":
            raise ManifestError("--checkpoint runs the compiled loop: it does not take "
                                "--trace, --rtl or --reference-kernels")
        from rlaccel.programs.checkpoint import identity, run_checkpointed
        res = run_checkpointed(s, checkpoint, checkpoint_every,
                               identity(s, manifest, overrides, options))
    else:
        res = s.platform.run()
    s.tick()
    report = s.report(res)
    if checkpoint is not None:
        report["sim"]["checkpoint"] = s.checkpoint
    if trace is not None:
        report["sim"]["trace"] = trace.stats()
        trace.energies({op: v["energy_pj"] / v["count"]
                        for op, v in report.get("by_opcode", {}).items() if v.get("count")})
    save_or_rescue([(trace_path, trace.write if trace is not None else None),
                    (json_path, json_text(report) if json_path else None)])
    return report


def _trace(clock_mhz: float, max_events: int | None,
           window_us: tuple[float, float] | None) -> ChromeTrace:
    if max_events is not None and max_events < 1:
        raise ManifestError(f"--trace-max-events must be at least 1, not {max_events}")
    window = None
    if window_us is not None:
        a, b = window_us
        if not 0 <= a < b:
            raise ManifestError(f"--trace-window {a}:{b}: the span must start at 0 or later "
                                f"and end after it starts")
        window = (int(a * clock_mhz), int(-(-b * clock_mhz // 1)))
    return ChromeTrace(clock_mhz, max_events=max_events, window=window)


def run_batch(manifest: str | Path, overrides: list[str] | None = None, *, seeds: list[int],
              arch: str | None = None, json_path: str | None = None,
              progress: Callable[[str], None] | None = None,
              arch_overrides: dict | None = None,
              meter: Callable[[int, int | None, str], None] | None = None, **options) -> dict:
    """Run a manifest for every seed of ``seeds``: configured once, every member assembled
    and bound like the first, its report equal to its single :func:`run`'s. One batched
    simulation (:class:`rlaccel.tlm.fast.batch.Batch`) when the machine has one agent and
    its plugin answers the members' exchanges together (``batch_hosts``: e.g. ADHDP's
    compiled cart-poles); otherwise the members' platforms run one after another, each as
    its single run (a batch asking each member's own host in turn saves nothing and pays
    its rounds, and several agents synchronise in SimPy time); ``sim.run`` says which.
    Returns ``{"seeds", "members": [report, ...], "sim"}`` (and writes it to
    ``json_path``). ``progress`` and ``meter`` as for :func:`run`, ``meter`` with the
    members' positions summed."""
    from rlaccel.tlm.fast.batch import Batch
    if not isinstance(manifest, (str, Path)):
        with manifest_source(manifest) as path:
            return run_batch(path, overrides, seeds=seeds, arch=arch, json_path=json_path,
                             progress=progress, arch_overrides=arch_overrides, meter=meter,
                             **options)
    if not seeds:
        raise ManifestError(f"{manifest}: --seeds names no seed")
    check_outputs({"--json": json_path}, {"the manifest": manifest})      # before any work
    wall = time.perf_counter()
    plugin, m0 = configure(manifest, overrides, arch=arch, seed=seeds[0],
                           arch_overrides=arch_overrides, **options)
    named = named_inputs(plugin, m0)
    check_outputs({"--json": json_path}, named)                           # every file it names

    def configured(seed):                 # the manifest read and checked once, per seed
        m = copy.deepcopy(m0)             # only the seed differs (and is checked)
        m["seed"] = seed
        plugin.validate(m)
        return plugin, m

    variants = Variants()                 # each seed's binary derived from the first's
    setups: list[_Setup] = []

    def tick():                           # the members' positions, summed
        if meter is not None and setups:
            at = [s.position() for s in setups]
            totals = [t for _, t, _ in at]
            meter(sum(d for d, _, _ in at),
                  None if None in totals else sum(totals), at[0][2])

    for s in seeds:                       # and its platform bound like the first's
        setups.append(_Setup(manifest, overrides, arch=arch, seed=s, trace=None,
                             progress=progress, datapath=None, kernels="compiled",
                             options=options, arch_overrides=arch_overrides,
                             configured=configured(s), assemble=variants,
                             like=setups[0].platform if setups else None))
        setups[-1].meter = (lambda *_: tick()) if meter is not None else None
    check_outputs({"--json": json_path}, named + setups[0].inputs())
    built = time.perf_counter()
    plugin = setups[0].plugin
    hosts = None
    if setups[0].platform.n_agents == 1:
        hosts = getattr(plugin, "batch_hosts", lambda runs, arch: None)(
            [s.r for s in setups], setups[0].arch)
    if hosts is not None:
        if meter is not None:             # the batched loop calls no controller's progress
            hosts = _Ticking(hosts, tick)
        results = Batch([s.platform for s in setups], hosts).run()
        how = "batch"
    else:                                 # each member's platform as its own run
        results = [s.platform.run() for s in setups]
        how = "one by one"
    reports = []
    for s, res in zip(setups, results):
        s.tick()
        reports.append(s.report(res))
    end = time.perf_counter()
    instructions = sum(r["instructions"] for r in reports)
    batch = {"seeds": list(seeds), "members": reports,
             "sim": {"members": len(reports), "instructions": instructions, "run": how},
             "versions": versions(),
             "timing": {"sim": {"wall_s": end - wall, "setup_s": built - wall,
                                "run_s": end - built,
                                "instructions_per_s": instructions / (end - built)
                                if end > built else 0.0}}}
    save_or_rescue([(json_path, json_text(batch) if json_path else None)])
    return batch


class _Ticking:
    """A batch host that calls ``tick`` after each batched exchange or round it answers (the
    batched loop's only calls out while it runs); everything else is the host's own."""

    def __init__(self, host, tick):
        self._host, self._tick = host, tick

    def __getattr__(self, name):
        attr = getattr(self._host, name)
        if name not in ("exchange", "exchange_into", "rounds") or not callable(attr):
            return attr

        def answered(*args, **kwargs):
            out = attr(*args, **kwargs)
            self._tick()
            return out
        return answered


def write_json(path: str | Path, report: dict) -> None:
    """A report as JSON: numpy scalars as numbers, NaN and infinities (which JSON has not) as
    null."""
    atomic_write(path, json_text(report))


def json_text(report: dict) -> str:
    """The text :func:`write_json` writes."""
    return json.dumps(_finite(report), indent=1, default=_jsonable, allow_nan=False)


def _finite(o):
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    if isinstance(o, (float, np.floating)) and not np.isfinite(o):
        return None
    return o


def _jsonable(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o))

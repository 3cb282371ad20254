"""What a machine provides to the runner and the CLI to run its programs: its plug-in.

A machine's descriptor names its plug-in (``MACHINE.plugin``, by default ``plugin:PLUGIN``),
an instance of a :class:`Plugin` subclass; the manifest's ``machine`` key picks it
(:func:`load_plugin`). The runner (:mod:`.runner`) does the plumbing every machine shares --
manifest and overrides, architecture, assembly, regions, platform, trace, JSON -- and asks
the plugin only for what differs: its manifest keys, the program and its defines, the hosts,
the machine's results, where its headline figures are (:meth:`Plugin.headline`, for the
summary's common block, :mod:`.summary`), how far a run has gone
(:meth:`Plugin.progress_position`, for the progress bar) and its own summary lines. A plugin that
reproduces its paper's figures also provides ``rlaccel report MACHINE``.

Plugins import their heavy dependencies (environments, references) inside their methods, so
listing the machines stays cheap.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

from rlaccel.util.args import SEED_MAX
from rlaccel.util.errors import RlaccelError, did_you_mean
from rlaccel.isa.machine import machines

from rlaccel.programs.headline import Headline
from rlaccel.programs.manifest import Knob

__all__ = ["PackagePlugin", "Plugin", "Run", "load_plugin", "plugin_machines", "COMMON_SCHEMA"]

#: manifest keys of every machine (the machine adds its own)
COMMON_SCHEMA = {"machine": "", "arch": "", "program": "",
                 "seed": Knob(1, 0, SEED_MAX, why="it seeds the random generators"),
                 "regions": {"__free__": True}}


class Run:
    """What a plugin hands to the runner for one run: the program to assemble, its defines,
    the hosts (one, or one per agent) and whatever the plugin keeps for its results.

    ``agent_defines`` (one dict per agent) makes the runner assemble the program once per
    agent, each with ``defines`` updated by its own dict, so every agent runs its own binary
    (learners of different widths on one machine); :meth:`Plugin.bind` then receives the
    list of binaries in agent order."""

    def __init__(self, program: Path, defines: dict | None = None, hosts: Any = None,
                 state: Any = None, agent_defines: list | None = None):
        self.program = Path(program)
        self.defines = dict(defines or {})
        self.hosts = hosts
        self.state = state
        self.agent_defines = ([dict(d) for d in agent_defines] if agent_defines is not None
                              else None)


class Plugin:
    """A machine's plug-in. Subclasses set ``machine``, ``schema`` (manifest keys with their
    defaults, whose types are the keys' types; merged over :data:`COMMON_SCHEMA`) and
    ``description``, and implement :meth:`prepare`, :meth:`results` and :meth:`summary`."""

    machine = ""
    description = ""
    schema: dict = {}
    #: the command-line options of ``rlaccel run`` this machine understands, as
    #: ``{option: manifest key}`` (``trials``, ``steps``, ...)
    run_options: dict = {}

    def full_schema(self) -> dict:
        return {**COMMON_SCHEMA, **self.schema}

    def validate(self, m: dict) -> None:
        """Check values beyond their types (ranges, combinations); raise ManifestError."""

    def program_path(self, m: dict) -> Path:
        return Path(m["__path__"]).parent / m["program"]

    def prepare(self, m: dict, arch) -> Run:
        """The program, defines and hosts of a run (hosts built before assembly may be given
        later through :meth:`bind`)."""
        raise NotImplementedError

    def bind(self, m: dict, run: Run, binary, arch) -> None:
        """Called with the assembled binary (a list of them, in agent order, when the run
        has ``agent_defines``): check it against the manifest and make the hosts (which find
        their buffers by symbol)."""

    def progress(self, run: Run) -> list[str]:
        """New progress lines since the last call (one per finished trial or episode)."""
        return []

    def progress_position(self, m: dict, run: Run, platform) -> tuple[int, int | None, str]:
        """How far a run has gone, for the progress bar: ``(done, total, unit)`` (``total``
        None when not known: the bar then shows the rate but no time left). This default
        reads what the platform counts as the run goes: for a machine whose length is
        ``--steps`` (a ``steps`` run option set above 0), the host's calls to the
        environment on agent 0 out of those steps; otherwise the host exchanges."""
        key = self.run_options.get("steps")
        total = m.get(key) if key else None
        calls = platform.agents[0].link.timeline.calls.get("environment")
        if isinstance(total, int) and total > 0 and calls is not None:
            return min(calls, total), total, "steps"
        return sum(a.link.exchanges for a in platform.agents), None, "host exchanges"

    def results(self, m: dict, run: Run, res, platform) -> dict:
        """The machine's own fields of the report (learning curve, throughput, ...)."""
        return {}

    def headline(self, r: dict):
        """Where a report's headline figures are, for the common block every run's summary
        starts with (:mod:`.summary`). This default reads what the runner and the platform
        record for every machine: the share of cycles the controller issued instructions,
        and the host's calls to the environment (steps and resets); no throughput measure.
        A machine overrides it to name its own utilisation, its paper's throughput measure
        and its environment steps."""
        calls = [a["timeline"]["calls"].get("environment")
                 for a in r.get("host", {}).get("agents", [])]
        counted = [c for c in calls if c is not None]
        return Headline(utilisation={"instruction issue": r["utilization"]["issue_busy"]},
                        env_steps=sum(counted) if counted else None,
                        steps_what="host calls to the environment (steps and resets)",
                        steps_note="the host made no call the platform files as "
                                   "'environment'")

    def summary(self, report: dict) -> str:
        """The machine's own lines of a report's terminal summary (printed after the common
        block, :func:`rlaccel.programs.summary.summary`)."""
        raise NotImplementedError

    # ---- rlaccel report MACHINE (optional) ----
    has_report = False

    def add_report_arguments(self, parser) -> None:
        """Options of ``rlaccel report <machine>``."""

    def report(self, args) -> int:
        """Run ``rlaccel report <machine>``; returns the exit status."""
        raise NotImplementedError

    #: the files a report writes in its output directory (``-o``)
    report_writes = ("report.md", "report.json", "*.png", "*.svg")

    def report_inputs(self, args) -> list[tuple[str, str]]:
        """The files ``rlaccel report <machine>`` reads, as ``(label, path)``: none of the
        files it writes may be one of them (checked before it starts)."""
        return []


class PackagePlugin(Plugin):
    """A plugin whose report lives in its package's modules: ``results.py`` (``results(m,
    run, res, platform)`` and ``summary(report)``) and, when the package has one,
    ``report.py`` (``add_arguments(parser)`` and ``cmd_report(args)``), imported when first
    used."""

    def _package(self) -> str:
        return type(self).__module__.rsplit(".", 1)[0]

    def _module(self, name: str):
        return importlib.import_module(f"{self._package()}.{name}")

    @property
    def has_report(self) -> bool:
        """``rlaccel report MACHINE`` exists when the package has a ``report`` module (found
        without importing it)."""
        return importlib.util.find_spec(f"{self._package()}.report") is not None

    def results(self, m: dict, run: Run, res, platform) -> dict:
        return self._module("results").results(m, run, res, platform)

    def summary(self, report: dict) -> str:
        return self._module("results").summary(report)

    def add_report_arguments(self, parser) -> None:
        self._module("report").add_arguments(parser)

    def report(self, args) -> int:
        return self._module("report").cmd_report(args)

    def report_inputs(self, args) -> list[tuple[str, str]]:
        module = self._module("report")
        return module.inputs(args) if hasattr(module, "inputs") else []


def plugin_machines() -> list[str]:
    """The machines that have a run plug-in."""
    return [name for name, m in machines().items() if m.plugin]


def load_plugin(machine: str, origin: str = "") -> Plugin:
    """The plugin of a machine; a clear error for one that has none."""
    where = f"{origin}: " if origin else ""
    known = plugin_machines()
    if not isinstance(machine, str):
        raise RlaccelError(f"{where}'machine' must be a string naming a machine "
                           f"({', '.join(known)}), not {machine!r}")
    if machine not in known:
        extra = did_you_mean(str(machine), known)
        raise RlaccelError(f"{where}machine '{machine}' is not known{extra}; machines: "
                           f"{', '.join(known)}")
    m = machines()[machine]
    return m.resolve(m.plugin)

"""What a machine declares, and how the layers find the machines.

A machine is one package, ``rlaccel.machines.<name>`` (the folder ``machines/<name>/``), whose
``__init__.py`` declares ``MACHINE = Machine(...)``: its name, the ISA family it defines (its
file ``isa.toml``, its instruction models at :attr:`Machine.models`), its architecture files
(``archs/*.toml``), its run plug-in, its RTL blocks, its environments and any verb of its own.
Every other reference is a ``"module:attribute"`` string relative to the machine's package,
imported only when it is used, so discovering the machines imports nothing but their
``__init__.py`` files. No layer lists machines by hand: they ask :func:`machines`.

Machines are found in three places, in this order:

* the folders of the ``rlaccel.machines`` package (the five machines shipped with rlaccel);
* the folders named by the ``RLACCEL_MACHINES`` environment variable (a list of directories,
  separated like ``PATH``): every sub-folder with an ``__init__.py`` that declares
  ``MACHINE`` is a machine, imported as ``rlaccel.machines.<folder>`` -- a machine of your own
  without installing anything or editing any file of rlaccel;
* installed distributions' entry points of the group ``rlaccel.machines`` (each names a
  package that declares ``MACHINE``).

A name found twice, a package without ``MACHINE`` or whose ``MACHINE.name`` is not its
folder's name is an :class:`~rlaccel.util.errors.IsaError` naming the folder.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from rlaccel.util.errors import IsaError

__all__ = ["Machine", "machines", "machine", "MACHINES_ENV", "PACKAGE"]

#: the environment variable naming folders of machines of one's own
MACHINES_ENV = "RLACCEL_MACHINES"
#: the package that holds every machine
PACKAGE = "rlaccel.machines"


def _frozen(d: Mapping | None) -> Mapping:
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class Machine:
    """One machine's descriptor (its package's ``MACHINE``).

    ``family`` -- the ISA family the machine defines (its rows in the package's ``isa``
    module, its instruction models at ``models``), or None when it implements only families
    of the layers (``base``); ``plugin`` -- the run plug-in (``rlaccel run``, ``rlaccel
    report``); ``blocks`` -- RTL block name -> its test bench class; ``rtl_run`` -- block ->
    the transactor class ``rlaccel run --rtl BLOCK`` puts under the machine's TLM;
    ``environments`` / ``parallel_environments`` -- gymnasium / PettingZoo ids the machine
    provides -> the class; ``verbs`` -- an extra command-line verb -> the module whose
    ``add_parser(subparsers)`` adds it; ``rtl_speed`` -- the module ``rlaccel rtl speed``
    measures with; ``kernels`` -- the module of the family's compiled kernels, which the
    simulator's compiled loop calls (:mod:`rlaccel.tlm.fast.dispatch`: its ``run`` and
    ``state``), or empty when every instruction of the family runs its reference semantics;
    ``speed`` -- the workload ``bench/speed.py`` times the simulator and the machine's float
    reference on (a :class:`rlaccel.programs.speed.Workload`). Every reference is
    ``"module"`` or ``"module:attribute"`` relative to the machine's package.
    """

    name: str
    title: str
    family: str | None = None
    models: str = "tlm:FAMILY"
    plugin: str = "plugin:PLUGIN"
    blocks: Mapping[str, str] = field(default_factory=dict)
    rtl_run: Mapping[str, str] = field(default_factory=dict)
    environments: Mapping[str, str] = field(default_factory=dict)
    parallel_environments: Mapping[str, str] = field(default_factory=dict)
    verbs: Mapping[str, str] = field(default_factory=dict)
    rtl_speed: str = ""
    kernels: str = ""
    speed: str = ""
    #: set by discovery: the package and its folder
    package: str = ""
    path: Path | None = None

    def __post_init__(self):
        for name in ("blocks", "rtl_run", "environments", "parallel_environments", "verbs"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    # -- where things are -------------------------------------------------------------------
    @property
    def archs(self) -> Path:
        """The folder of the machine's architecture files."""
        return self._folder() / "archs"

    @property
    def isa(self) -> Path:
        """The file of the machine's ISA family (:mod:`rlaccel.isa.family`)."""
        return self._folder() / "isa.toml"

    @property
    def programs(self) -> Path:
        """The folder of the machine's assembly programs and run manifests."""
        return self._folder() / "programs"

    def _folder(self) -> Path:
        if self.path is None:
            raise IsaError(f"machine '{self.name}' was not found by discovery (no folder)")
        return self.path

    def qualified(self, ref: str) -> str:
        """A reference relative to the package as a whole module path (``module:attr``)."""
        module, sep, attr = ref.partition(":")
        return f"{self.package}.{module}{sep}{attr}" if module else f"{self.package}{sep}{attr}"

    def resolve(self, ref: str) -> Any:
        """Import what ``ref`` (``"module"`` or ``"module:attribute"``) names."""
        module, _, attr = self.qualified(ref).partition(":")
        obj = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
        return obj


_FOUND: dict[str, Machine] | None = None


def _extend_path(pkg) -> None:
    """Put the folders of :data:`MACHINES_ENV` on the machines package's search path."""
    for folder in os.environ.get(MACHINES_ENV, "").split(os.pathsep):
        if not folder:
            continue
        p = str(Path(folder).resolve())
        if not Path(p).is_dir():
            raise IsaError(f"{MACHINES_ENV}: {folder}: not a directory")
        if p not in pkg.__path__:
            pkg.__path__.append(p)


def _declared(module_name: str, where: str) -> Machine:
    try:
        mod = importlib.import_module(module_name)
    except ImportError as exc:
        raise IsaError(f"{where}: the machine package cannot be imported: {exc}") from None
    m = getattr(mod, "MACHINE", None)
    if not isinstance(m, Machine):
        raise IsaError(f"{where}: a machine package declares MACHINE = Machine(...) in its "
                       f"__init__.py")
    return m


def _discover() -> dict[str, Machine]:
    pkg = importlib.import_module(PACKAGE)
    _extend_path(pkg)
    found: dict[str, Machine] = {}

    def add(m: Machine, package: str, folder: Path, where: str) -> None:
        if m.name in found:
            raise IsaError(f"{where}: machine '{m.name}' is already defined in "
                           f"{found[m.name].path}")
        found[m.name] = Machine(**{**m.__dict__, "package": package, "path": folder})

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        folder = (Path(info.module_finder.path) / info.name).resolve()
        m = _declared(f"{PACKAGE}.{info.name}", str(folder))
        if m.name != info.name:
            raise IsaError(f"{folder}: MACHINE.name is '{m.name}'; a machine is named after "
                           f"its folder ('{info.name}')")
        add(m, f"{PACKAGE}.{info.name}", folder, str(folder))
    from importlib.metadata import entry_points
    for ep in entry_points(group=PACKAGE):
        m = _declared(ep.value, f"entry point {ep.name} ({ep.value})")
        mod = importlib.import_module(ep.value)
        add(m, ep.value, Path(mod.__file__).resolve().parent, f"entry point {ep.name}")
    return found


def machines() -> Mapping[str, Machine]:
    """Every machine, by name (found once per process)."""
    global _FOUND
    if _FOUND is None:
        _FOUND = _discover()
    return MappingProxyType(_FOUND)


def machine(name: str) -> Machine:
    """One machine by name; an IsaError lists the known ones."""
    found = machines()
    if name not in found:
        raise IsaError(f"no machine '{name}' (machines: {', '.join(found)})")
    return found[name]

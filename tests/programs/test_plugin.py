"""A package plug-in finds its report in its package: ``rlaccel report MACHINE`` exists exactly
for the machines whose package has a ``report`` module."""

from __future__ import annotations

import importlib.util

from rlaccel.isa.machine import machines
from rlaccel.programs.plugin import PackagePlugin, load_plugin, plugin_machines


def test_a_package_plugin_has_a_report_when_its_package_has_a_report_module():
    packaged = [name for name in plugin_machines()
                if isinstance(load_plugin(name), PackagePlugin)]
    assert packaged
    for name in packaged:
        assert (machines()[name].path / "report.py").is_file(), name
        assert load_plugin(name).has_report is True, name


class _NoReport(PackagePlugin):
    machine = "none"


def test_a_package_plugin_whose_package_has_no_report_module_has_no_report():
    assert importlib.util.find_spec(f"{__name__.rsplit('.', 1)[0]}.report") is None
    assert _NoReport().has_report is False

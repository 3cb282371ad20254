"""Packaging: the top-level folders of the repository (the layers and the machines of
docs/design.md) install under one namespace, ``rlaccel.isa``, ``rlaccel.assembler``,
``rlaccel.tlm``, ``rlaccel.rtl``, ``rlaccel.programs``, ``rlaccel.sweep``, ``rlaccel.util``
and ``rlaccel.machines``, so site-packages gets exactly one top-level package and a user's own
``isa`` or ``programs`` cannot collide with ours. A machine's data (architectures, programs,
manifests, documentation) installs with its package.

The namespace is laid out on disk, not mapped: ``rlaccel/<folder>`` is a symbolic link to the
top-level ``<folder>`` (the links are the list of folders), and ``src/rlaccel`` links to ``rlaccel``. So the package is an
ordinary src layout, and ``pip install -e .`` puts only ``src`` on the path (no import hook,
and no top-level ``isa`` or ``util`` a user could pick up by mistake)."""

from setuptools import find_namespace_packages, setup

DATA = ["*.lark", "*.toml", "*.s", "*.inc", "*.md", "*.sh"]

# every folder is a package (data folders such as archs/ and programs/ as namespace
# packages), so each file of DATA installs beside its folder's modules
packages = [name for name in find_namespace_packages("src", include=["rlaccel", "rlaccel.*"])
            if "__pycache__" not in name]

setup(packages=packages, package_dir={"": "src"},
      package_data={name: DATA for name in packages})

"""Packaging: the top-level folders of the repository (the layers of docs/design.md) install
under one namespace, ``rlaccel.isa``, ``rlaccel.assembler``, ``rlaccel.tlm``, ``rlaccel.rtl``,
``rlaccel.programs``, ``rlaccel.sweep`` and ``rlaccel.util``, so site-packages gets exactly one top-level package
and a user's own ``isa`` or ``programs`` cannot collide with ours."""

from setuptools import find_packages, setup

LAYERS = ("isa", "assembler", "tlm", "rtl", "programs", "sweep", "util")
DATA = ["*.lark", "*.toml", "*.s", "*.inc", "*.md", "archs/*.toml", "tools/*.sh"]

packages, package_dir = ["rlaccel"], {"rlaccel": "rlaccel"}
for layer in LAYERS:
    package_dir[f"rlaccel.{layer}"] = layer
    for name in find_packages(include=[layer, f"{layer}.*"]):
        packages.append(f"rlaccel.{name}")

setup(packages=packages, package_dir=package_dir,
      package_data={name: DATA for name in packages})

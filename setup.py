"""Packaging: the top-level folders of the repository (the layers and the machines of
docs/design.md) install under one namespace, ``rlaccel.isa``, ``rlaccel.assembler``,
``rlaccel.tlm``, ``rlaccel.rtl``, ``rlaccel.programs``, ``rlaccel.sweep``, ``rlaccel.util``
and ``rlaccel.machines``, so site-packages gets exactly one top-level package and a user's own
``isa`` or ``programs`` cannot collide with ours. A machine's data (architectures, programs,
manifests, documentation) installs with its package."""

from setuptools import find_namespace_packages, setup

FOLDERS = ("isa", "assembler", "tlm", "rtl", "programs", "sweep", "util", "machines")
DATA = ["*.lark", "*.toml", "*.s", "*.inc", "*.md", "*.sh"]

packages, package_dir = ["rlaccel"], {"rlaccel": "rlaccel"}
for folder in FOLDERS:
    package_dir[f"rlaccel.{folder}"] = folder
    # every folder is a package (data folders such as archs/ and programs/ as namespace
    # packages), so each file of DATA installs beside its folder's modules
    for name in find_namespace_packages(include=[folder, f"{folder}.*"]):
        if "__pycache__" not in name:
            packages.append(f"rlaccel.{name}")

setup(packages=packages, package_dir=package_dir,
      package_data={name: DATA for name in packages})

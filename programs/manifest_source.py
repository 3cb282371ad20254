"""What :func:`rlaccel.run` accepts as a manifest: a path to a TOML file, or the manifest's
contents as a dictionary (``{"machine": "adhdp", "program": ..., ...}``).

A dictionary is written as a TOML file in a temporary directory for the run (each key as
``--set`` writes a value, so it reads back unchanged) and checked as a file would be. Its
relative file names -- the ``program*`` keys and an ``arch`` that names a ``.toml`` file --
are resolved against the current directory, where the caller's relative names point, not
against the temporary file's."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from rlaccel.util.files import atomic_write
from rlaccel.util.toml_literal import toml_literal

from rlaccel.programs.manifest import ManifestError

__all__ = ["manifest_source"]


@contextmanager
def manifest_source(manifest) -> Iterator[str | Path]:
    """The manifest as a path for the duration of the ``with`` block."""
    if isinstance(manifest, (str, Path)):
        yield manifest
        return
    if not isinstance(manifest, Mapping):
        raise ManifestError(f"a manifest is the path of a .toml file or a dict of its keys, "
                            f"not {type(manifest).__name__}")
    lines = []
    for key, value in manifest.items():
        if not isinstance(key, str):
            raise ManifestError(f"the manifest dict's keys are strings, not {key!r}")
        if isinstance(value, str) and _is_file_name(key, value) and Path(value).exists():
            value = str(Path(value).resolve())
        try:
            lines.append(f"{toml_literal(key)} = {toml_literal(value)}")
        except ValueError as exc:
            raise ManifestError(f"the manifest dict's {key!r}: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="rlaccel-manifest-") as d:
        path = Path(d) / "manifest.toml"
        atomic_write(path, ("\n".join(lines) + "\n").encode(), ManifestError)
        yield path


def _is_file_name(key: str, value: str) -> bool:
    return key.startswith("program") or (key == "arch" and value.endswith(".toml"))

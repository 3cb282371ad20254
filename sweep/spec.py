"""Sweep specs: a manifest, the axes to vary, the metrics to keep -- and the points they make.

    description = "Fig. 5: learning against fraction bits"
    manifest = "cartpole.toml"              # relative to the spec (or an axis "manifest")

    [set]                                   # fixed on every point, as rlaccel run --set
    stop_on_success = false
    trials = 20

    [axes]                                  # the first axis varies slowest
    "arch.machine.dtype" = ["float64", "q6.8", "q6.12"]    # an architecture knob
    "learning.Ic" = {range = [40, 80, 20]}                  # 40, 60, 80 (both ends included)
    seed = {range = [1, 50]}
    update = {zip = {virtual_update = [false, true], "learning.Ia" = [100, 50]},
              labels = ["regular", "VU"]}                   # lists varied together

    [metrics]                               # name = dotted path into the report
    balanced = "sum(learning.steps_per_trial)"
    cycles = "cycles"

    [run]
    batch = 10          # up to 10 points that differ only in the seed run as one batched
                        # simulation (rlaccel run --seeds); 1: every point on its own

    [plot]              # optional: see sweep/figure.py

A setting's key is ``manifest`` (a manifest path, relative to the spec), ``seed``,
``arch.TABLE.KEY`` (an architecture knob: :mod:`rlaccel.programs.arch_variant`) or any key
of the manifest's family (dotted, as ``rlaccel run --set``). An axis is a list, a
``{range = [first, last, step]}`` of integers (``format = "q6.{}"`` turns each into a
string), ``{values = [...], format = ...}``, or a ``{zip = {...}, labels = [...]}`` of
equally long lists. The points are the product of the axes in the order written; the order is
fixed, so ``--limit K`` and a resumed sweep mean the same points.

:meth:`Spec.validate` checks every axis and fixed key against the manifest family's schema,
and every distinct configuration (apart from the seed) as ``rlaccel run`` would, before
anything runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlaccel.util.errors import did_you_mean
from rlaccel.util.files import read_toml
from rlaccel.util.toml_literal import toml_literal as _literal

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.metrics import Metric

__all__ = ["Spec", "Axis", "Point", "load_spec", "parse_spec", "toml_literal", "TOP_KEYS"]

TOP_KEYS = ("description", "manifest", "set", "axes", "metrics", "run", "plot")
RUN_KEYS = {"batch": 1}
_AXIS_WORDS = ("range", "values", "format", "zip", "labels")

#: the most values one axis may have (a range is expanded to a list)
MAX_AXIS_VALUES = 1_000_000

#: the most points a sweep may have: counted from the axes before any point is built (every
#: point is a row of the database, inserted when the sweep starts)
MAX_POINTS = 1_000_000

#: the most distinct configurations (apart from the seed) :meth:`Spec.validate` runs through
#: the runner's checks one by one; beyond it, every value of every axis is checked once and a
#: combination the checks would refuse is the failed result of its points
MAX_CHECKED = 1_000


def toml_literal(v: Any) -> str:
    """A value as a TOML literal (what ``--set KEY=VALUE`` parses)."""
    try:
        return _literal(v)
    except ValueError as e:
        raise SweepError(str(e)) from None


def _canon(v: Any) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Axis:
    """One axis: its name, the setting keys it sets (several for a zip) and, per position,
    one value per key and a label."""

    name: str
    keys: tuple[str, ...]
    values: tuple[tuple, ...]
    labels: tuple

    def __len__(self) -> int:
        return len(self.values)


@dataclass(frozen=True)
class Point:
    """A point of a sweep: its index in the fixed order, its coordinates (axis -> label) and
    its full settings (every key the run gets, fixed ones included)."""

    index: int
    coords: dict
    settings: dict

    @property
    def key(self) -> str:
        """The point's identity: its settings as canonical JSON."""
        return _canon(self.settings)

    def run_args(self, spec_dir: Path) -> dict:
        """The runner's arguments: manifest path, overrides, architecture overrides, seed."""
        s = self.settings
        return {"manifest": str((spec_dir / s["manifest"]).resolve()),
                "overrides": [f"{k}={toml_literal(v)}" for k, v in s.items()
                              if k not in ("manifest", "seed") and not k.startswith("arch.")],
                "arch_overrides": {k[5:]: v for k, v in s.items() if k.startswith("arch.")},
                "seed": s.get("seed")}

    def batch_key(self) -> str:
        """Points with equal batch keys differ only in their seed."""
        return _canon({k: v for k, v in self.settings.items() if k != "seed"})


@dataclass
class Spec:
    """A loaded sweep spec (:func:`load_spec`)."""

    path: Path
    text: str
    description: str
    fixed: dict
    axes: list[Axis]
    metrics: dict[str, Metric]
    batch: int = 1
    plot: Any = None
    _points: list | None = field(default=None, repr=False)

    @property
    def dir(self) -> Path:
        return self.path.parent

    @property
    def metrics_text(self) -> dict:
        return {name: m.text for name, m in self.metrics.items()}

    @property
    def size(self) -> int:
        """The number of points, counted from the axes (no point is built)."""
        return math.prod(len(a) for a in self.axes)

    def point(self, i: int) -> Point:
        """Point ``i`` of the fixed order, built alone."""
        settings = dict(self.fixed)
        coords = {}
        for axis, j in zip(self.axes, _digits(i, [len(a) for a in self.axes])):
            settings.update(zip(axis.keys, axis.values[j]))
            coords[axis.name] = axis.labels[j]
        return Point(i, coords, dict(sorted(settings.items())))

    def points(self, limit: int | None = None) -> list[Point]:
        """Every point (the first ``limit``), in the fixed order (first axis slowest); only
        the points asked for are built."""
        if limit is not None and limit < self.size:
            return self._points[:limit] if self._points is not None else \
                [self.point(i) for i in range(limit)]
        if self._points is None:
            self._points = [self.point(i) for i in range(self.size)]
        return self._points

    def digest(self) -> str:
        """A hash of the points' settings in their order (which, not how they are reported),
        from the fixed settings and the axes' keys and values: the points need not be
        built."""
        h = hashlib.sha256(b"rlaccel-sweep-2\n")
        h.update(_canon(dict(sorted(self.fixed.items()))).encode())
        for a in self.axes:
            h.update(b"\n")
            h.update(_canon([list(a.keys), [list(v) for v in a.values]]).encode())
        return h.hexdigest()

    def points_digest(self) -> str:
        """The digest rlaccel 0.x stored: a hash of every point's settings (its databases
        are still resumed)."""
        h = hashlib.sha256()
        for p in self.points():
            h.update(p.key.encode())
            h.update(b"\n")
        return h.hexdigest()

    def validate(self, limit: int | None = None) -> list[tuple[str, str]]:
        """Check every key against its manifest's machine and the distinct configurations of
        the points to run (the first ``limit``) as ``rlaccel run`` would (at most
        :data:`MAX_CHECKED` of them one by one; beyond that every value of every axis once);
        raises :class:`SweepError` before anything runs. Returns every file the spec names
        (the spec, the manifests and the files they name), which outputs must not
        overwrite."""
        from rlaccel.util.errors import RlaccelError
        from rlaccel.programs.runner import configure, named_inputs, plugin_of

        n = self.size if limit is None else min(limit, self.size)
        manifests = {}
        for name in self._manifests():
            path = self.dir / name
            if not path.is_file():
                raise SweepError(f"{self.path}: manifest '{name}' does not exist "
                                 f"({path})")
            try:
                manifests[name] = plugin_of(path)
            except RlaccelError as exc:
                raise SweepError(f"{self.path}: manifest '{name}': {exc}") from None
        for name, plugin in manifests.items():
            schema = plugin.full_schema()
            for key, where in self._manifest_keys():
                _check_key(key, schema, f"{self.path}: {where} '{key}'",
                           f"the {plugin.machine} manifest {name}")
        inputs = [("the sweep spec", str(self.path))]
        seen = set()
        for p in self._to_check(n):
            if p.batch_key() in seen:
                continue
            seen.add(p.batch_key())
            a = p.run_args(self.dir)
            try:
                plugin, m = configure(a["manifest"], a["overrides"], seed=a["seed"],
                                      arch_overrides=a["arch_overrides"])
            except RlaccelError as exc:
                raise SweepError(f"{self.path}: point {p.index} ({_show(p.coords)}): "
                                 f"{exc}") from None
            inputs += [i for i in named_inputs(plugin, m) if i not in inputs]
        return inputs

    def _manifests(self) -> list[str]:
        axis = next((a for a in self.axes if "manifest" in a.keys), None)
        if axis is None:
            return [self.fixed["manifest"]]
        k = axis.keys.index("manifest")
        return list(dict.fromkeys(v[k] for v in axis.values))

    def _to_check(self, n: int):
        """The points whose configurations :meth:`validate` checks, among the first ``n``:
        every one when there are at most :data:`MAX_CHECKED`; else the first seed of every
        combination of the other axes, while those are at most :data:`MAX_CHECKED`; else
        one point per value of every axis (the others at their first value)."""
        if n <= MAX_CHECKED:
            yield from (self.point(i) for i in range(n))
            return
        lengths = [len(a) for a in self.axes]
        strides = [math.prod(lengths[i + 1:]) for i in range(len(lengths))]
        free = [i for i, a in enumerate(self.axes) if a.keys != ("seed",)]
        if math.prod(lengths[i] for i in free) <= MAX_CHECKED:
            for digits in itertools.product(*(range(lengths[i]) for i in free)):
                index = sum(d * strides[i] for d, i in zip(digits, free))
                if index < n:
                    yield self.point(index)
            return
        for axis in range(len(lengths)):
            for j in range(lengths[axis]):
                if j * strides[axis] < n:
                    yield self.point(j * strides[axis])

    def _manifest_keys(self):
        for key in self.fixed:
            yield key, "[set] key"
        for axis in self.axes:
            for key in axis.keys:
                yield key, ("axis" if axis.keys == (axis.name,) else f"axis '{axis.name}' key")


def _digits(i: int, lengths: list[int]) -> list[int]:
    """Point ``i``'s value index on every axis (the last axis varies fastest)."""
    out = []
    for n in reversed(lengths):
        i, j = divmod(i, n)
        out.append(j)
    return out[::-1]


def _check_key(key: str, schema: dict, where: str, whose: str) -> None:
    if key in ("manifest", "seed") or key.startswith("arch."):
        return
    node = schema
    parts = key.split(".")
    for i, part in enumerate(parts):
        if isinstance(node, dict) and node.get("__free__"):
            return                                   # a free table takes any key
        if not isinstance(node, dict) or part not in node:
            known = [k for k in node if k != "__free__"] if isinstance(node, dict) else []
            prefix = ".".join(parts[:i])
            extra = did_you_mean(part, known, prefix + "." if prefix else "")
            raise SweepError(f"{where}: {whose} has no key '{key}'{extra}; a key is "
                             f"'manifest', 'seed', 'arch.TABLE.KEY' (an architecture knob) or "
                             f"one of the manifest's: "
                             f"{', '.join(prefix + '.' + k if prefix else k for k in known)}")
        node = node[part]


def _show(coords: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in coords.items())


def _flatten(table: dict, prefix: str = "", axes: bool = False) -> dict:
    out = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value and not (axes and set(value) & set(_AXIS_WORDS)):
            out.update(_flatten(value, f"{name}.", axes))
        else:
            out[name] = value
    return out


def _values(name: str, spec: Any, origin: str) -> tuple[list, list]:
    """An axis's (or a zip member's) values and labels."""
    where = f"{origin}: axis '{name}'"
    fmt = None
    if isinstance(spec, dict):
        unknown = set(spec) - {"range", "values", "format"}
        if unknown:
            raise SweepError(f"{where}: unknown word(s) {', '.join(sorted(unknown))}; an axis "
                             f"is a list, {{range = [first, last, step]}} or "
                             f"{{values = [...]}}, each with an optional format, or "
                             f"{{zip = {{...}}, labels = [...]}}")
        fmt = spec.get("format")
        if fmt is not None and not _one_field(fmt):
            raise SweepError(f"{where}: format must be a string with one {{}} where the value "
                             f"goes, such as \"q6.{{}}\", not {fmt!r}")
        if ("range" in spec) == ("values" in spec):
            raise SweepError(f"{where}: give either range = [first, last, step] or "
                             f"values = [...]")
        if "range" in spec:
            r = spec["range"]
            if not (isinstance(r, list) and len(r) in (2, 3)
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in r)):
                raise SweepError(f"{where}: range must be [first, last] or [first, last, step] "
                                 f"of integers (both ends included), not {r!r}")
            first, last, step = (r + [1])[:3]
            if step == 0:
                raise SweepError(f"{where}: the range {r} has step 0")
            span = range(first, last + (1 if step > 0 else -1), step)
            if len(span) > MAX_AXIS_VALUES:
                raise SweepError(f"{where}: the range {r} has {len(span):,} values, more than "
                                 f"the {MAX_AXIS_VALUES:,} an axis may have")
            values = list(span)
            if not values:
                raise SweepError(f"{where}: the range {r} is empty")
        else:
            values = spec["values"]
    else:
        values = spec
    if not isinstance(values, list):
        raise SweepError(f"{where}: expected a list of values, a range or a zip, not "
                         f"{values!r}")
    if not values:
        raise SweepError(f"{where}: the list of values is empty")
    if fmt is not None:
        values = [_format(fmt, v, where) for v in values]
    return values, list(values)


def _one_field(fmt) -> bool:
    """Whether ``fmt`` is a string with exactly one replacement field, ``{}`` or ``{:SPEC}``
    (no name, no index, no conversion)."""
    if not isinstance(fmt, str):
        return False
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(fmt) if f is not None]
    except ValueError:                              # a lone { or }
        return False
    return len(fields) == 1 and fields[0] == "" and "{!" not in fmt


def _format(fmt: str, v, where: str) -> str:
    try:
        return fmt.format(v)
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        raise SweepError(f"{where}: format {fmt!r} cannot take the value {v!r} ({exc})") \
            from None


def _axis(name: str, spec: Any, origin: str) -> Axis:
    if isinstance(spec, dict) and "zip" in spec:
        extra = set(spec) - {"zip", "labels"}
        if extra:
            raise SweepError(f"{origin}: axis '{name}': a zip takes zip = {{...}} and labels, "
                             f"not {', '.join(sorted(extra))}")
        members = spec["zip"]
        if not isinstance(members, dict) or not members:
            raise SweepError(f"{origin}: axis '{name}': zip must be a table of equally long "
                             f"lists, such as zip = {{virtual_update = [false, true], "
                             f"\"learning.Ia\" = [100, 50]}}")
        members = _flatten(members, axes=True)
        cols = {k: _values(f"{name}.{k}", v, origin)[0] for k, v in members.items()}
        lengths = {k: len(v) for k, v in cols.items()}
        if len(set(lengths.values())) != 1:
            raise SweepError(f"{origin}: axis '{name}': the zipped lists differ in length "
                             f"({', '.join(f'{k}: {n}' for k, n in lengths.items())})")
        n = next(iter(lengths.values()))
        rows = [tuple(cols[k][i] for k in cols) for i in range(n)]
        labels = spec.get("labels")
        if labels is None:
            labels = [", ".join(str(x) for x in row) for row in rows]
        elif not (isinstance(labels, list) and len(labels) == n
                  and all(isinstance(x, (str, int, float)) for x in labels)):
            raise SweepError(f"{origin}: axis '{name}': labels must be a list of {n} names")
        return Axis(name, tuple(cols), tuple(rows), tuple(labels))
    values, labels = _values(name, spec, origin)
    return Axis(name, (name,), tuple((v,) for v in values), tuple(labels))


def load_spec(path: str | Path) -> Spec:
    """Read a spec and check its structure (keys are checked against the manifest by
    :meth:`Spec.validate`)."""
    p = Path(path)
    if p.is_dir():
        raise SweepError(f"{p}: is a folder, not a sweep spec (.toml)")
    read_toml(p, SweepError, "sweep spec")                  # the file's own errors
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepError(f"{p}: cannot read: {exc}") from None
    return parse_spec(text, p)


def parse_spec(text: str, path: str | Path) -> Spec:
    """A spec from its text (``path`` locates its manifests and names it in messages)."""
    p = Path(path)
    origin = str(p)
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{origin}: not a valid sweep spec: {exc}") from None
    for key in table:
        if key not in TOP_KEYS:
            extra = did_you_mean(key, TOP_KEYS)
            raise SweepError(f"{origin}: unknown key '{key}'{extra}; a spec has "
                             f"{', '.join(TOP_KEYS)}")
    for key in ("set", "axes", "metrics", "run", "plot"):
        if key in table and not isinstance(table[key], dict):
            raise SweepError(f"{origin}: '{key}' must be a table ([{key}])")
    description = table.get("description", "")
    if not isinstance(description, str):
        raise SweepError(f"{origin}: description must be a string")
    fixed = _flatten(table.get("set", {}))
    axes_table = _flatten(table.get("axes", {}), axes=True)
    axes = [_axis(name, spec, origin) for name, spec in axes_table.items()]
    owner: dict[str, str] = {k: "[set]" for k in fixed}
    for axis in axes:
        for key in axis.keys:
            if key in owner:
                raise SweepError(f"{origin}: '{key}' is set twice ({owner[key]} and axis "
                                 f"'{axis.name}')")
            owner[key] = f"axis '{axis.name}'"
    if "manifest" in table:
        if "manifest" in owner:
            raise SweepError(f"{origin}: 'manifest' is set twice (the top-level key and "
                             f"{owner['manifest']})")
        fixed["manifest"] = table["manifest"]
    elif "manifest" not in owner:
        raise SweepError(f"{origin}: no manifest: give manifest = \"FILE.toml\" (relative to "
                         f"the spec) or an axis 'manifest'")
    for axis in axes:
        for key, vals in zip(axis.keys, zip(*axis.values)):
            if key == "manifest" and not all(isinstance(v, str) and v for v in vals):
                raise SweepError(f"{origin}: axis '{axis.name}': manifests must be file names")
    if "manifest" in fixed and not (isinstance(fixed["manifest"], str) and fixed["manifest"]):
        raise SweepError(f"{origin}: manifest must be a file name")
    metrics_table = table.get("metrics", {})
    if not metrics_table:
        raise SweepError(f"{origin}: no metrics: add a [metrics] table naming what to keep of "
                         f"each run's report, e.g. balanced = \"sum(learning.steps_per_trial)\"")
    metrics = {name: Metric.parse(name, text, f"{origin}: [metrics]")
               for name, text in metrics_table.items()}
    run = table.get("run", {})
    for key, value in run.items():
        if key not in RUN_KEYS:
            raise SweepError(f"{origin}: [run] has unknown key '{key}'; known: "
                             f"{', '.join(RUN_KEYS)}")
    batch = run.get("batch", RUN_KEYS["batch"])
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise SweepError(f"{origin}: [run] batch must be an integer of at least 1, not "
                         f"{batch!r}")
    size = math.prod(len(a) for a in axes)
    if size > MAX_POINTS:
        raise SweepError(f"{origin}: the axes make {size:,} points "
                         f"({' x '.join(f'{len(a):,}' for a in axes)}), more than the "
                         f"{MAX_POINTS:,} a sweep may have; split it into several sweeps or "
                         f"give the axes fewer values")
    for axis in axes:                            # a repeated value repeats whole points
        seen: dict = {}
        for j, row in enumerate(axis.values):
            k = _canon(list(row))
            if k in seen:
                raise SweepError(f"{origin}: axis '{axis.name}' repeats a value "
                                 f"({axis.labels[j]}: positions {seen[k] + 1} and {j + 1}): "
                                 f"its points would be run twice")
            seen[k] = j
    _check_seeds(fixed, axes, origin)
    spec = Spec(path=p, text=text, description=description, fixed=fixed, axes=axes,
                metrics=metrics, batch=batch)
    if "plot" in table:
        from rlaccel.sweep.figure import PlotSpec
        spec.plot = PlotSpec.from_table(table["plot"], spec)
    return spec


def _check_seeds(fixed: dict, axes: list[Axis], origin: str) -> None:
    """Every seed a point gets is one ``rlaccel run --seed`` takes."""
    from rlaccel.util.args import SEED_MAX
    where = [("[set] seed", [fixed["seed"]])] if "seed" in fixed else []
    for axis in axes:
        if "seed" in axis.keys:
            k = axis.keys.index("seed")
            where.append((f"axis '{axis.name}'", [v[k] for v in axis.values]))
    for name, seeds in where:
        for v in seeds:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= SEED_MAX:
                raise SweepError(f"{origin}: {name}: a seed must be an integer from 0 to "
                                 f"{SEED_MAX:,}, not {v!r}")

"""The ``rlaccel sweep`` verb.

    rlaccel sweep SPEC [--db FILE] [--workers N] [--ray [ADDRESS]] [--resume] [--limit K]
                       [--batch N] [-q]
    rlaccel sweep show DB [--csv [FILE]] [--plot BASE]

``rlaccel/cli.py`` calls :func:`add_parser`; nothing heavy is imported until the verb runs.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import signal
import sys
from pathlib import Path

__all__ = ["add_parser", "cmd_sweep"]

USAGE = ("rlaccel sweep SPEC [--db FILE] [--workers N] [--ray [ADDRESS]] [--resume "
         "[--retry-failed]] [--limit K] [--batch N] [-q]\n       rlaccel sweep show DB [--csv [FILE]] "
         "[--plot BASE]")

DESCRIPTION = """\
Run a design-space sweep: every point of SPEC (a manifest, the axes to vary -- manifest keys,
architecture knobs as arch.TABLE.KEY, seeds -- and the metrics to keep) on a local process
pool or on Ray, each result stored in an SQLite database as it finishes. A killed sweep
continues with --resume. With a [plot] table, a finished sweep also writes its figure
(DB.png, DB.svg) and numbers (DB.md). `rlaccel sweep show DB` prints a database's points,
--csv exports them, --plot draws the figure."""


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {v}")
    return v


def add_parser(sub) -> None:
    """Add ``sweep`` to the top-level subparsers."""
    s = sub.add_parser("sweep", help="run a design-space sweep (process pool or Ray), "
                                     "results in SQLite; `sweep show DB`",
                       usage=USAGE, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("target", metavar="SPEC", help="sweep spec (.toml), or `show`")
    s.add_argument("db_arg", metavar="DB", nargs="?", help="with `show`: the database")
    from rlaccel.util.args import file_name
    s.add_argument("--db", metavar="FILE", type=file_name,
                   help="the sweep's SQLite database (default: out/SPEC-NAME.sqlite)")
    s.add_argument("--workers", type=_positive, metavar="N",
                   help="worker processes (default: this machine's CPUs)")
    s.add_argument("--ray", nargs="?", const=True, default=False, metavar="ADDRESS",
                   help="run on Ray: a local Ray started for the run, or the cluster at "
                        "ADDRESS (e.g. auto); needs pip install 'rlaccel[ray]'")
    s.add_argument("--resume", action="store_true",
                   help="continue the sweep in --db: run only its unfinished points")
    s.add_argument("--retry-failed", action="store_true",
                   help="with --resume: run the failed points again too (a failure with an "
                        "outside cause, such as a file being edited during the sweep)")
    s.add_argument("--limit", type=_positive, metavar="K",
                   help="run only the first K points of the spec's fixed order")
    s.add_argument("--batch", type=_positive, metavar="N",
                   help="run up to N points that differ only in the seed as one batched "
                        "simulation (default: the spec's [run] batch, else 1)")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    s.add_argument("--csv", nargs="?", const="-", metavar="FILE",
                   help="with `show`: write every point as CSV to FILE (default: stdout)")
    s.add_argument("--plot", metavar="BASE",
                   help="with `show`: draw the spec's [plot] to BASE.png, BASE.svg, BASE.md")
    s.set_defaults(func=cmd_sweep, sweep_parser=s)


def cmd_sweep(args) -> int:
    p = args.sweep_parser
    if args.target == "show":
        if args.db_arg is None:
            p.error("show needs the database: rlaccel sweep show DB")
        used = [f for f, v in (("--db", args.db), ("--workers", args.workers),
                               ("--ray", args.ray), ("--resume", args.resume),
                               ("--retry-failed", args.retry_failed),
                               ("--limit", args.limit), ("--batch", args.batch)) if v]
        if used:
            p.error(f"show does not take {', '.join(used)}")
        return _show(args)
    if args.db_arg is not None:
        p.error(f"unexpected argument {args.db_arg!r} (the database is --db FILE)")
    for flag, v in (("--csv", args.csv), ("--plot", args.plot)):
        if v is not None:
            p.error(f"{flag} goes with `rlaccel sweep show DB`")
    from rlaccel.sweep.driver import default_db, figure_base, run_sweep
    from rlaccel.sweep.spec import load_spec
    from rlaccel.sweep.store import open_existing

    spec = load_spec(args.target)
    db = Path(args.db) if args.db else default_db(args.target)
    before = signal.signal(signal.SIGTERM, _terminated)   # end the workers, keep the rest
    try:
        summary = run_sweep(spec, db, workers=args.workers, ray=args.ray, resume=args.resume,
                            retry_failed=args.retry_failed, limit=args.limit,
                            batch=args.batch, quiet=args.quiet)
    finally:
        signal.signal(signal.SIGTERM, before)
    print(summary.line())
    if spec.plot is not None and summary.unfinished == 0:
        from rlaccel.util.files import rescuing

        from rlaccel.sweep.figure import write_figure
        with open_existing(db) as store, rescuing():     # saved beside if it cannot be written
            md, paths = write_figure(spec, store.rows(), figure_base(db))
        print(md)
        print(f"sweep: wrote {', '.join(str(x) for x in paths)}")
    return 0


def _terminated(signum, frame):
    print("rlaccel sweep: terminated; --resume runs the unfinished points", file=sys.stderr)
    raise SystemExit(128 + signum)


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, dict)):
        return f"[{len(v)} items]" if isinstance(v, list) else "{...}"
    return str(v)


def _show(args) -> int:
    from rlaccel.util.files import check_outputs

    from rlaccel.sweep.figure import figure_files
    from rlaccel.sweep.spec import parse_spec
    from rlaccel.sweep.store import database_files, open_existing

    db = args.db_arg
    outputs = [("--csv", None if args.csv in (None, "-") else args.csv)]
    if args.plot:
        outputs += [("--plot", f) for f in figure_files(args.plot)]
    check_outputs(outputs, database_files(db))             # before anything is read
    with open_existing(db) as store:
        meta, rows, counts = store.meta(), store.rows(), store.counts()
        axes = store.meta_json("axes", list, [])
        metrics = list(store.meta_json("metrics", dict, {}))
    if args.plot:
        from rlaccel.sweep.figure import write_figure
        spec = parse_spec(meta.get("spec_text", ""), Path(meta.get("spec_path", "spec.toml")))
        if spec.plot is None:
            from rlaccel.sweep.errors import SweepError
            raise SweepError(f"{db}: its spec has no [plot] table: nothing to draw")
        check_outputs(outputs, database_files(db) + [("the sweep spec", meta["spec_path"])])
        md, paths = write_figure(spec, rows, args.plot)
        print(md)
        print(f"sweep: wrote {', '.join(str(x) for x in paths)}")
        return 0
    if args.csv:
        text = _csv(rows, axes, metrics)
        if args.csv == "-":
            sys.stdout.write(text)
        else:
            from rlaccel.util.files import atomic_write
            atomic_write(args.csv, text)
            print(f"sweep: wrote {len(rows)} points to {args.csv}")
        return 0
    print(f"{args.db_arg}: {meta.get('spec_path', '?')}: {counts['total']} points: "
          f"{counts['done']} done, {counts['failed']} failed, "
          f"{counts['pending'] + counts['running']} unfinished")
    finished = [r["timing"] for r in rows if r["timing"].get("finished_at")]
    if finished:
        from rlaccel.sweep.progress import duration
        print(f"points' wall time {duration(sum(t.get('wall_s') or 0 for t in finished))} in "
              f"all; finished from {min(t['finished_at'] for t in finished)} to "
              f"{max(t['finished_at'] for t in finished)}")
    head = ["#", "status"] + axes + metrics + ["wall s", "error"]
    table = []
    for r in rows:
        err = (r["error"] or "").strip().splitlines()
        table.append([str(r["idx"]), r["status"]]
                     + [_cell(r["coords"].get(a)) for a in axes]
                     + [_cell((r["metrics"] or {}).get(m)) if r["metrics"] else "-"
                        for m in metrics]
                     + [_cell(r["timing"].get("wall_s")), (err[0][:60] if err else "")])
    widths = [max(len(h), *(len(row[i]) for row in table)) if table else len(h)
              for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0


def _csv(rows, axes, metrics) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["idx", "status"] + axes + metrics
               + ["arch", "version", "binary_sha256", "config", "error", "timing.wall_s",
                  "timing.worker", "timing.finished_at"])

    def val(v):
        if v is None:
            return ""
        return json.dumps(v) if isinstance(v, (list, dict)) else v

    for r in rows:
        w.writerow([r["idx"], r["status"]] + [val(r["coords"].get(a)) for a in axes]
                   + [val((r["metrics"] or {}).get(m)) for m in metrics]
                   + [val(r["arch"]), val(r["version"]), val(r["binary_sha256"]),
                      json.dumps(r["config"]), val(r["error"])]
                   + [val(r["timing"].get(k)) for k in ("wall_s", "worker", "finished_at")])
    return buf.getvalue()

"""A sweep's results in SQLite: one row per point, written as each point finishes.

Table ``points`` (one row per point of the spec's fixed order, inserted when the sweep is
created): ``idx`` (the point's place in the order), ``key`` (its settings as canonical
JSON, unique), ``coords`` (axis -> value, JSON), ``config`` (every setting the run got,
JSON), ``status`` (``pending``, ``running``, ``done``, ``failed``), ``metrics`` (JSON),
``error``, ``arch`` (the architecture the run used, a variant's full name), ``version``
(rlaccel's), ``binary_sha256`` (of the assembled ``.rlb``) and ``timing`` (JSON: what this
computer measured, ``wall_s``, the ``worker`` that ran it, host:pid, the CPU seconds that
worker process had used when it finished the point, ``worker_cpu_s``, and ``finished_at``,
UTC), so two sweeps of one spec hold the same rows outside ``timing``. Table ``meta`` holds
the spec (its path, text and the digest of its points), the metrics, the ``versions`` of
rlaccel, Python and the simulation's dependencies that created it and, under ``timing``,
when the sweep was created. (Databases of rlaccel 0.x kept ``wall_s``, ``worker`` and
``finished_at`` as columns of their own; they are read and resumed as they are.)

A session inserts the points it may run when it starts (all of them, or the first ``limit``:
``--limit`` on a sweep of a million points inserts only what it runs; a later session inserts
the rest it needs), each once (``idx`` and ``key`` are unique); ``meta`` ``size`` is the
spec's number of points, and those not inserted yet count as pending.

Only the process that runs the sweep writes, one short transaction per finished task, so a
sweep killed at any moment leaves every finished point recorded once and the rest
``pending``; :meth:`Store.open` with ``resume`` runs those again. (``running`` is never
written; a database may hold it from an older rlaccel, and it counts as unfinished.)
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from rlaccel.util.files import what_is
from rlaccel.util.version import versions

from rlaccel.sweep.errors import SweepError

__all__ = ["Store", "STATUSES", "open_existing", "database_files"]

STATUSES = ("pending", "running", "done", "failed")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS points (
    idx INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    coords TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'running', 'done', 'failed')),
    metrics TEXT,
    error TEXT,
    arch TEXT,
    version TEXT,
    binary_sha256 TEXT,
    timing TEXT
);
"""


#: the columns of ``points`` and the keys of ``meta`` a sweep database has
_BASE = ("idx", "key", "coords", "config", "status", "metrics", "error", "arch", "version",
         "binary_sha256")
#: its measured figures: one JSON column, or (rlaccel 0.x) three of their own
_TIMING = ("timing",)
_TIMING_0 = ("wall_s", "worker", "finished_at")
_META = ("spec_path", "spec_text", "digest", "metrics", "axes")


def _connect(path: Path) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error as exc:
        raise SweepError(f"{path}: cannot open the sweep database: {exc}") from None
    return con


def _connect_ro(path: Path) -> sqlite3.Connection:
    """A read-only connection: nothing about the file changes, and no file appears beside
    it (opened as immutable, unless a write-ahead log beside it holds data that a sweep
    still running, or killed, wrote)."""
    from urllib.parse import quote
    wal = Path(f"{path}-wal")
    live = wal.is_file() and wal.stat().st_size > 0
    try:
        return sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro"
                               f"{'' if live else '&immutable=1'}", uri=True,
                               timeout=30.0, isolation_level=None)
    except sqlite3.Error as exc:
        raise SweepError(f"{path}: cannot open the sweep database: {exc}") from None


def _damaged(path: Path, exc: Exception | str) -> SweepError:
    why = " ".join(str(exc).replace("*** in database main ***", "").split())
    return SweepError(f"{path}: the sweep database is damaged ({why})")


def _inspect(path: Path) -> None:
    """Refuse, reading only, a file that is not a sweep database in working order: not
    SQLite, damaged, another program's database (other tables, or ours without their
    columns or keys)."""
    _check_sqlite(path)
    con = _connect_ro(path)
    try:
        try:
            bad = con.execute("PRAGMA quick_check(1)").fetchone()
            if bad is None or bad[0] != "ok":
                raise _damaged(path, bad[0] if bad else "no answer to its check")
            tables = sorted(r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"))
            if set(tables) != {"meta", "points"}:
                has = f"its tables: {', '.join(tables)}" if tables else "it has no tables"
                raise SweepError(f"{path}: not a sweep database ({has}; a sweep database has "
                                 f"the tables meta and points)")
            cols = {r[1] for r in con.execute("PRAGMA table_info(points)")}
            missing = [c for c in _BASE + (_TIMING_0 if "timing" not in cols else ())
                       if c not in cols]
            if missing or {r[1] for r in con.execute("PRAGMA table_info(meta)")} != \
                    {"key", "value"}:
                what = (f"its points table lacks the column(s) {', '.join(missing)}"
                        if missing else "its meta table is not (key, value)")
                raise SweepError(f"{path}: not a sweep database ({what})")
            keys = {r[0] for r in con.execute("SELECT key FROM meta")}
            missing = [k for k in _META if k not in keys]
            if missing:
                raise SweepError(f"{path}: not a sweep database (its meta table lacks "
                                 f"{', '.join(missing)})")
        except sqlite3.DatabaseError as exc:
            raise _damaged(path, exc) from None
    finally:
        con.close()


class Store:
    """An open sweep database."""

    def __init__(self, path: Path, con: sqlite3.Connection, writes: bool = True):
        self.path = path
        self.con = con
        self.writes = writes
        try:
            cols = {r[1] for r in con.execute("PRAGMA table_info(points)")}
        except sqlite3.DatabaseError:
            cols = set()
        #: where the measured figures are: a ``timing`` column, or the 0.x columns
        self.columns = _BASE + (_TIMING if "timing" in cols or not cols else _TIMING_0)
        self.ident = _ident(path)       # the file the connection writes (see close)

    # ---- opening ----
    @classmethod
    def open(cls, path: str | Path, spec, *, resume: bool = False,
             limit: int | None = None) -> "Store":
        """Create the database for ``spec``, or (``resume``) reopen the one it made, with its
        first ``limit`` points (all without) inserted; a database of another sweep, or one
        with finished points without ``resume``, is an error."""
        p = Path(path)
        if p.is_dir():
            raise SweepError(f"{p}: is a folder; --db names the sweep's database file")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SweepError(f"cannot create {p.parent}: {exc.strerror}") from None
        existed = p.exists() and p.stat().st_size > 0
        update_metrics = False
        if existed:                          # judged read only: a refused file is unchanged
            try:
                _inspect(p)
            except SweepError as exc:
                raise SweepError(f"{exc}; give another --db ({p} is left as it is)") from None
            with cls(p, _connect_ro(p), writes=False) as old:
                update_metrics = old._fits(spec, resume)
        con = _connect(p)
        store = cls(p, con)
        try:
            if not existed:
                con.executescript(_SCHEMA)
            n = con.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            store.close()
            raise _damaged(p, exc) from None
        if n == 0:
            store._create(spec)
        elif update_metrics:
            store._set_meta({"metrics": json.dumps(spec.metrics_text)})
        store._insert(spec, spec.size if limit is None else min(limit, spec.size))
        return store

    def _fits(self, spec, resume: bool) -> bool:
        """Whether this database (read only) may take ``spec`` (``resume``: its unfinished
        points); a SweepError says why not. True when its metrics are to be replaced by the
        spec's (no point kept the old ones)."""
        p = self.path
        n = self.counts()["total"]
        if n == 0:
            return False
        meta = self.meta()
        digest = meta.get("digest")
        counts = self.counts()
        if digest != spec.digest() and (spec.size > 100_000 or
                                        digest != spec.points_digest()):
            raise SweepError(f"{p} holds another sweep ({meta.get('spec_path', '?')}, "
                             f"{n} points; this spec makes {spec.size} "
                             f"{'other ' if spec.size == n else ''}points): give "
                             f"another --db")
        if not resume and counts["done"] + counts["failed"]:
            raise SweepError(f"{p} already holds this sweep ({counts['done']} of {n} points "
                             f"done, {counts['failed']} failed): --resume runs the "
                             f"{n - counts['done'] - counts['failed']} unfinished ones, or "
                             f"give another --db")
        metrics = self.meta_json("metrics", dict, {})
        if metrics != spec.metrics_text:
            if counts["done"]:
                raise SweepError(f"{p}: the spec's [metrics] changed since the sweep started "
                                 f"and {counts['done']} points kept the old ones: give "
                                 f"another --db")
            return True
        return False

    def _insert(self, spec, upto: int) -> None:
        """Insert the points ``[inserted, upto)`` of the fixed order (a prefix is always
        inserted), in transactions of at most 10,000."""
        have = self._read("SELECT COUNT(*), MAX(idx) FROM points")[0]
        first = 0 if have[1] is None else have[1] + 1
        for lo in range(first, upto, 10_000):
            rows = [(p.index, p.key, json.dumps(p.coords), json.dumps(p.settings))
                    for p in (spec.point(i) for i in range(lo, min(lo + 10_000, upto)))]
            with self._tx():
                self.con.executemany("INSERT OR IGNORE INTO points (idx, key, coords, config) "
                                     "VALUES (?, ?, ?, ?)", rows)

    def _create(self, spec) -> None:
        with self._tx():
            self._set_meta({"size": str(spec.size), "spec_path": str(spec.path.resolve()),
                            "spec_text": spec.text, "digest": spec.digest(),
                            "metrics": json.dumps(spec.metrics_text),
                            "axes": json.dumps([a.name for a in spec.axes]),
                            "description": spec.description,
                            "versions": json.dumps(versions()),
                            "timing": json.dumps({"created_at": _now()})}, tx=False)

    # ---- reading ----
    def _read(self, sql: str, args: tuple = ()) -> list:
        try:
            return self.con.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def meta(self) -> dict:
        out = {}
        for k, v in self._read("SELECT key, value FROM meta"):
            if not isinstance(k, str) or not isinstance(v, str):
                raise SweepError(f"{self.path}: not a sweep database (meta {k!r} is "
                                 f"{type(v).__name__}, not text)")
            out[k] = v
        return out

    def meta_json(self, key: str, kind: type, default):
        """A meta value that holds JSON (``axes``, ``metrics``), checked to be a ``kind`` of
        strings."""
        text = self.meta().get(key)
        if text is None:
            return default
        try:
            v = json.loads(text)
        except ValueError:
            v = None
        if not isinstance(v, kind) or not all(isinstance(x, str) for x in v):
            raise SweepError(f"{self.path}: the sweep database is damaged (meta {key} is not "
                             f"a JSON {kind.__name__} of names: {text[:60]!r})")
        return v

    def counts(self) -> dict:
        out = dict.fromkeys(STATUSES, 0)
        for status, n in self._read("SELECT status, COUNT(*) FROM points GROUP BY status"):
            if status not in STATUSES:
                raise SweepError(f"{self.path}: the sweep database is damaged (a point's "
                                 f"status is {status!r}, not one of {', '.join(STATUSES)})")
            out[status] = n
        inserted = sum(out[s] for s in STATUSES)
        size = self.meta().get("size", "")
        total = int(size) if size.isdigit() else inserted   # (0.x databases: all inserted)
        out["pending"] += max(total - inserted, 0)
        out["total"] = max(total, inserted)
        return out

    def unfinished(self, limit: int | None = None) -> list[int]:
        """Indices of the points not done nor failed, among the first ``limit``."""
        q = "SELECT idx FROM points WHERE status IN ('pending', 'running')"
        args: tuple = ()
        if limit is not None:
            q += " AND idx < ?"
            args = (limit,)
        out = [r[0] for r in self._read(q + " ORDER BY idx", args)]
        bad = next((i for i in out if isinstance(i, bool) or not isinstance(i, int)), None)
        if bad is not None:
            raise SweepError(f"{self.path}: the sweep database is damaged (a point's index is "
                             f"{bad!r})")
        return out

    def rows(self) -> list[dict]:
        """Every point as a dict (JSON columns decoded), in the fixed order; a value of the
        wrong kind is an error naming the point and the column."""
        try:
            cur = self.con.execute(f"SELECT {', '.join(self.columns)} FROM points "
                                   f"ORDER BY idx")
            fetched = cur.fetchall()
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None
        return [self._row(dict(zip(self.columns, row))) for row in fetched]

    def _row(self, r: dict) -> dict:
        def bad(column, what):
            return SweepError(f"{self.path}: the sweep database is damaged (point "
                              f"{r['idx']!r}: {column} is {what})")
        if isinstance(r["idx"], bool) or not isinstance(r["idx"], int):
            raise bad("idx", f"{r['idx']!r}, not an integer")
        if r["status"] not in STATUSES:
            raise bad("status", f"{r['status']!r}, not one of {', '.join(STATUSES)}")
        for k, kinds in (("coords", (dict,)), ("config", (dict,)),
                         ("metrics", (dict, type(None)))):
            text = r[k]
            if text is None and type(None) in kinds:
                continue
            if not isinstance(text, str):
                raise bad(k, f"{text!r}, not JSON text")
            try:
                r[k] = json.loads(text)
            except ValueError:
                raise bad(k, f"not JSON: {text[:60]!r}") from None
            if not isinstance(r[k], kinds):
                raise bad(k, f"{str(text)[:60]!r}, not a JSON object")
        if "timing" in r:
            text = r["timing"]
            try:
                if text is not None and not isinstance(text, str):
                    raise bad("timing", f"{text!r}, not JSON text")
                t = json.loads(text) if text is not None else {}
            except ValueError:
                raise bad("timing", f"not JSON: {text[:60]!r}") from None
            if not isinstance(t, dict):
                raise bad("timing", f"{str(text)[:60]!r}, not a JSON object")
            r["timing"] = t
        else:                                            # an rlaccel 0.x database
            r["timing"] = {k: r.pop(k) for k in _TIMING_0}
        t = r["timing"]
        wall = t.get("wall_s")
        if wall is not None and (isinstance(wall, bool) or not isinstance(wall, (int, float))):
            raise bad("timing wall_s", f"{wall!r}, not a number")
        for k in ("worker", "finished_at"):
            if t.get(k) is not None and not isinstance(t[k], str):
                raise bad(f"timing {k}", f"{t[k]!r}, not text")
        for k in ("key", "error", "arch", "version", "binary_sha256"):
            if r[k] is not None and not isinstance(r[k], str):
                raise bad(k, f"{r[k]!r}, not text")
        return r

    # ---- writing ----
    def retry_failed(self) -> int:
        """Make the failed points pending again (a failure that had an outside cause);
        returns how many."""
        with self._tx():
            cur = self.con.execute("UPDATE points SET status = 'pending', metrics = NULL, "
                                   "error = NULL WHERE status = 'failed'")
            if "timing" in self.columns:
                self.con.execute("UPDATE points SET timing = NULL WHERE status = 'pending'")
        return cur.rowcount

    def record(self, results: list[dict]) -> None:
        """Store finished points (one transaction); a point already finished is left as it
        is, so nothing is ever recorded twice."""
        now = _now()
        with self._tx():
            for r in results:
                metrics = json.dumps(r["metrics"]) if r["metrics"] is not None else None
                timing = {"wall_s": r["wall_s"], "worker": r["worker"], "finished_at": now,
                          "worker_cpu_s": r.get("worker_cpu_s")}
                if "timing" in self.columns:
                    self.con.execute(
                        "UPDATE points SET status = ?, metrics = ?, error = ?, arch = ?, "
                        "version = ?, binary_sha256 = ?, timing = ? "
                        "WHERE idx = ? AND status IN ('pending', 'running')",
                        (r["status"], metrics, r["error"], r["arch"], r["version"],
                         r["binary_sha256"], json.dumps(timing), r["index"]))
                else:                                    # an rlaccel 0.x database
                    self.con.execute(
                        "UPDATE points SET status = ?, metrics = ?, error = ?, wall_s = ?, "
                        "arch = ?, version = ?, binary_sha256 = ?, worker = ?, "
                        "finished_at = ? WHERE idx = ? AND status IN ('pending', 'running')",
                        (r["status"], metrics, r["error"], r["wall_s"], r["arch"],
                         r["version"], r["binary_sha256"], r["worker"], now, r["index"]))

    def _set_meta(self, values: dict, tx: bool = True) -> None:
        def put():
            self.con.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                 list(values.items()))
        if tx:
            with self._tx():
                put()
        else:
            put()

    def _tx(self):
        return _Transaction(self.con, self.path)

    def close(self) -> None:
        """Close the database. If its file was removed or replaced while the sweep ran (the
        connection went on writing the old one), what it holds is saved beside the run
        (:func:`rlaccel.util.files.rescuing`) and a SweepError says where."""
        try:
            if self.ident is not None and _ident(self.path) != self.ident:
                from rlaccel.util.files import rescuing
                problem = SweepError(f"{self.path}: the database was removed or replaced "
                                     f"during the sweep")
                with rescuing(error=SweepError) as scope:
                    scope.rewrite(str(self.path), problem, self._backup)
            elif self.writes:             # at rest, one file (a reader then adds none)
                try:
                    self.con.execute("PRAGMA journal_mode=DELETE")
                except sqlite3.Error:
                    pass                  # another connection still reads: it stays WAL
        finally:
            self.con.close()

    def _backup(self, path: str) -> None:
        dst = sqlite3.connect(path)
        try:
            self.con.backup(dst)
        except sqlite3.Error as exc:
            raise SweepError(f"{path}: {exc}") from None
        finally:
            dst.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Transaction:
    def __init__(self, con, path):
        self.con, self.path = con, path

    def __enter__(self):
        try:
            self.con.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise SweepError(f"{self.path}: cannot write the sweep database: {exc}") from None
        return self.con

    def __exit__(self, kind, exc, tb):
        if kind is None:
            try:
                self.con.execute("COMMIT")
            except sqlite3.Error as err:
                raise SweepError(f"{self.path}: cannot write the sweep database: "
                                 f"{err}") from None
        else:
            self.con.execute("ROLLBACK")
        return False


def _check_sqlite(p: Path) -> None:
    try:
        with open(p, "rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise SweepError(f"{p}: cannot read: {exc.strerror}") from None
    if head != b"SQLite format 3\x00":
        raise SweepError(f"{p}: not a sweep database (not an SQLite file)")


def open_existing(path: str | Path, write: bool = False) -> Store:
    """A sweep database to read (``rlaccel sweep show``: read only, nothing about the file
    changes), or with ``write`` to update (a finished sweep's figure is drawn from it)."""
    p = Path(path)
    if not p.exists():
        raise SweepError(f"{p}: no such sweep database")
    if not p.is_file():
        raise SweepError(f"{p}: is {what_is(p.stat().st_mode)}, not a sweep database")
    _inspect(p)
    return Store(p, _connect(p) if write else _connect_ro(p), writes=write)


def database_files(db: str | Path) -> list[tuple[str, str]]:
    """A database and the files SQLite keeps beside it, as inputs that no output may be."""
    db = str(db)
    return [("the database", db), ("the database's write-ahead log", db + "-wal"),
            ("the database's shared memory", db + "-shm")]


def _ident(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

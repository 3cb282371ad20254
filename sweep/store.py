"""A sweep's results in SQLite: one row per point, written as each point finishes.

Table ``points`` (one row per point of the spec's fixed order, inserted when the sweep is
created): ``idx`` (the point's place in the order), ``key`` (its settings as canonical
JSON, unique), ``coords`` (axis -> value, JSON), ``config`` (every setting the run got,
JSON), ``status`` (``pending``, ``running``, ``done``, ``failed``), ``metrics`` (JSON),
``error``, ``wall_s``, ``arch`` (the architecture the run used, a variant's full name),
``version`` (rlaccel's), ``binary_sha256`` (of the assembled ``.rlb``), ``worker``
(host:pid) and ``finished_at`` (UTC). Table ``meta`` holds the spec (its
path, text and the digest of its points) and the metrics.

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

from rlaccel.sweep.errors import SweepError

__all__ = ["Store", "STATUSES", "open_existing"]

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
    wall_s REAL,
    arch TEXT,
    version TEXT,
    binary_sha256 TEXT,
    worker TEXT,
    finished_at TEXT
);
"""


def _connect(path: Path) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error as exc:
        raise SweepError(f"{path}: cannot open the sweep database: {exc}") from None
    return con


class Store:
    """An open sweep database."""

    def __init__(self, path: Path, con: sqlite3.Connection):
        self.path = path
        self.con = con
        self.ident = _ident(path)       # the file the connection writes (see close)

    # ---- opening ----
    @classmethod
    def open(cls, path: str | Path, spec, *, resume: bool = False) -> "Store":
        """Create the database for ``spec``, or (``resume``) reopen the one it made; a
        database of another sweep, or one with finished points without ``resume``, is an
        error."""
        p = Path(path)
        if p.is_dir():
            raise SweepError(f"{p}: is a folder; --db names the sweep's database file")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SweepError(f"cannot create {p.parent}: {exc.strerror}") from None
        existed = p.exists() and p.stat().st_size > 0
        if existed:
            _check_sqlite(p)
        con = _connect(p)
        store = cls(p, con)
        try:
            con.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise SweepError(f"{p}: not a sweep database ({exc})") from None
        n = con.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        if n == 0:
            store._create(spec)
            return store
        meta = store.meta()
        digest = meta.get("digest")
        counts = store.counts()
        if digest != spec.digest():
            raise SweepError(f"{p} holds another sweep ({meta.get('spec_path', '?')}, "
                             f"{n} points; this spec makes {len(spec.points())} "
                             f"{'other ' if len(spec.points()) == n else ''}points): give "
                             f"another --db")
        if not resume and counts["done"] + counts["failed"]:
            raise SweepError(f"{p} already holds this sweep ({counts['done']} of {n} points "
                             f"done, {counts['failed']} failed): --resume runs the "
                             f"{n - counts['done'] - counts['failed']} unfinished ones, or "
                             f"give another --db")
        metrics = json.loads(meta.get("metrics", "{}"))
        if metrics != spec.metrics_text:
            if counts["done"]:
                raise SweepError(f"{p}: the spec's [metrics] changed since the sweep started "
                                 f"and {counts['done']} points kept the old ones: give "
                                 f"another --db")
            store._set_meta({"metrics": json.dumps(spec.metrics_text)})
        return store

    def _create(self, spec) -> None:
        rows = [(p.index, p.key, json.dumps(p.coords), json.dumps(p.settings))
                for p in spec.points()]
        with self._tx():
            self.con.executemany("INSERT INTO points (idx, key, coords, config) "
                                 "VALUES (?, ?, ?, ?)", rows)
            self._set_meta({"spec_path": str(spec.path.resolve()), "spec_text": spec.text,
                            "digest": spec.digest(), "metrics": json.dumps(spec.metrics_text),
                            "axes": json.dumps([a.name for a in spec.axes]),
                            "description": spec.description,
                            "created_at": _now()}, tx=False)

    # ---- reading ----
    def meta(self) -> dict:
        return dict(self.con.execute("SELECT key, value FROM meta").fetchall())

    def counts(self) -> dict:
        out = dict.fromkeys(STATUSES, 0)
        for status, n in self.con.execute("SELECT status, COUNT(*) FROM points "
                                          "GROUP BY status"):
            out[status] = n
        out["total"] = sum(out[s] for s in STATUSES)
        return out

    def unfinished(self, limit: int | None = None) -> list[int]:
        """Indices of the points not done nor failed, among the first ``limit``."""
        q = "SELECT idx FROM points WHERE status IN ('pending', 'running')"
        args: tuple = ()
        if limit is not None:
            q += " AND idx < ?"
            args = (limit,)
        return [r[0] for r in self.con.execute(q + " ORDER BY idx", args)]

    def rows(self) -> list[dict]:
        """Every point as a dict (JSON columns decoded), in the fixed order."""
        cur = self.con.execute("SELECT * FROM points ORDER BY idx")
        names = [d[0] for d in cur.description]
        out = []
        for row in cur:
            r = dict(zip(names, row))
            for k in ("coords", "config", "metrics"):
                r[k] = json.loads(r[k]) if r[k] is not None else None
            out.append(r)
        return out

    # ---- writing ----
    def retry_failed(self) -> int:
        """Make the failed points pending again (a failure that had an outside cause);
        returns how many."""
        with self._tx():
            cur = self.con.execute("UPDATE points SET status = 'pending', metrics = NULL, "
                                   "error = NULL WHERE status = 'failed'")
        return cur.rowcount

    def record(self, results: list[dict]) -> None:
        """Store finished points (one transaction); a point already finished is left as it
        is, so nothing is ever recorded twice."""
        now = _now()
        with self._tx():
            for r in results:
                self.con.execute(
                    "UPDATE points SET status = ?, metrics = ?, error = ?, wall_s = ?, "
                    "arch = ?, version = ?, binary_sha256 = ?, worker = ?, finished_at = ? "
                    "WHERE idx = ? AND status IN ('pending', 'running')",
                    (r["status"], json.dumps(r["metrics"]) if r["metrics"] is not None
                     else None, r["error"], r["wall_s"], r["arch"], r["version"],
                     r["binary_sha256"], r["worker"], now, r["index"]))

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


def open_existing(path: str | Path) -> Store:
    """A sweep database to read (``rlaccel sweep show``)."""
    p = Path(path)
    if not p.is_file():
        raise SweepError(f"{p}: no such sweep database")
    _check_sqlite(p)
    con = _connect(p)
    try:
        names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise SweepError(f"{p}: not a sweep database ({exc})") from None
    if not {"meta", "points"} <= names:
        con.close()
        raise SweepError(f"{p}: not a sweep database (no points table)")
    return Store(p, con)


def _ident(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

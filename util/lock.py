"""An advisory lock on a file, for bench scripts whose sweeps may run in several processes at
once (one per core) and must neither run the same run twice nor write a shared result file
over each other's (``fcntl.flock``: released when the block ends or the process dies, so a
killed sweep leaves no stale lock behind)."""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["exclusive", "lock_for"]


@contextmanager
def exclusive(path: str | Path, wait: bool = True) -> Iterator[bool]:
    """An exclusive lock on ``path`` (created, with its folder) while the block runs. With
    ``wait`` False the block runs at once with False, without the lock, when another process
    (or another open of the file in this one) holds it; otherwise with True."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def lock_for(target: str | Path, what: str = "rlaccel") -> Path:
    """A lock file for ``target`` in the temporary folder, named after ``what`` and keyed by
    ``target``'s absolute path, so that nothing is left beside the results."""
    key = hashlib.sha1(str(Path(target).resolve()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"{what}-{key}.lock"

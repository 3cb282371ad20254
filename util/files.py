"""Reading and writing the files rlaccel touches: one place for every layer and every verb.

Writing:

* :func:`check_outputs` -- what a verb calls *before it does any work*: each output must be
  a regular file (or not exist yet) in an existing, writable directory, no output may be one
  of the verb's inputs (compared by inode, so a hard or symbolic link to an input is caught
  too), and no two outputs may be the same file;
* :func:`atomic_write` -- every file rlaccel writes (binaries, listings, reports, traces)
  goes through it, so a failure never leaves a partial file (:func:`atomic_output` gives the
  same guarantees to a writer that needs a file name of its own, such as a VCD tracer);
* :func:`save_or_rescue` -- what a verb calls to write the results of a long run: if an
  output cannot be written after all, its contents are saved in a new file beside the run and
  the error says where.

Reading:

* :func:`read_text` -- source text (assembly files and their includes): regular files only,
  bounded in size, UTF-8 with the line and column of a byte that is not;
* :func:`read_bytes` -- the same checks for binary files;
* :func:`read_toml` -- every TOML file rlaccel reads (architectures, manifests, specs).

Nothing here reads a device, a FIFO or a directory as if it were a file, and nothing writes
over one.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
import tempfile
import tomllib
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

from rlaccel.util.errors import OutputError, RlaccelError, SourceError

__all__ = ["atomic_write", "atomic_output", "check_outputs", "check_output_dir",
           "rescuing", "save_or_rescue", "make_output_dir", "read_text",
           "read_bytes", "read_toml", "what_is", "MAX_TEXT_BYTES"]

#: the largest text file rlaccel reads (an assembly source, an include, a TOML file)
MAX_TEXT_BYTES = 64 << 20


# ------------------------------------------------------------------------------- writing

def atomic_write(path: str | os.PathLike, blob: bytes | str | memoryview,
                 error: type[RlaccelError] = RlaccelError) -> None:
    """Write ``blob`` (text is UTF-8 encoded) to ``path`` atomically.

    * A failure never leaves a partial file: the data goes to a temporary file in the same
      directory, synced to disk, which then replaces ``path`` in one rename.
    * An existing file keeps its permission bits (and, where allowed, its owner and group).
    * A symbolic link is followed: its target is replaced and the link stays a link.
    * A file with several hard links keeps them: the new contents are written to the
      temporary file first (so they are complete and the disk has room for them), then
      copied into the file itself, so every link sees them (a rename would give ``path`` a
      new inode and leave the other links behind). Should that copy fail after all, the
      error says where the complete contents are.
    * ``path`` must be a regular file or not exist: a directory, device, FIFO or socket is
      refused, never replaced.

    Failures raise ``error`` naming the path; inside :func:`rescuing` the contents are saved
    elsewhere instead and the end of the block says where.
    """
    if isinstance(blob, str):
        blob = blob.encode()
    scope = _SCOPE.get()
    try:
        with atomic_output(path, error) as tmp:
            with open(tmp, "wb") as f:
                f.write(blob)
    except RlaccelError as exc:
        if scope is None:
            raise
        scope.save(os.fspath(path), exc, lambda fd: _write_all(fd, blob))


@contextmanager
def atomic_output(path: str | os.PathLike, error: type[RlaccelError] = RlaccelError,
                  suffix: str = ".tmp", staged: bool = False) -> Iterator[str]:
    """A temporary file (``.BASE.XXXXXXXX`` followed by ``suffix``, created empty) beside
    ``path`` for a writer that insists on a file name of its own (a VCD tracer, an HDL
    converter). When the block ends normally the file is synced and replaces ``path`` under
    the rules of :func:`atomic_write`; when it raises, the file is removed.

    Inside :func:`rescuing` a file that cannot be put in place is saved elsewhere, and the
    block still ends normally: when the temporary file cannot be created (the directory is
    gone or read-only, the path is now a directory), the writer is given a rescue file
    instead; when the final rename fails (the directory was removed while the writer wrote),
    the contents are copied from the temporary file, held open all along.

    ``staged``: for a writer that removes and creates its file again (MyHDL's VCD tracer
    does), which the open file cannot follow: the writer writes ``BASE`` (its name ending in
    ``suffix``) in a private temporary directory, copied into place at the end."""
    name = os.fspath(path)
    if not name:
        raise error("cannot write a file with an empty name")
    if staged:
        stage = tempfile.mkdtemp(prefix="rlaccel-stage-")
        try:
            inner = os.path.join(stage, os.path.splitext(os.path.basename(name))[0] + suffix)
            yield inner
            with open(inner, "rb") as src, atomic_output(name, error, suffix) as tmp:
                with open(tmp, "r+b") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
        except OSError as e:
            raise error(f"{name}: cannot write: {e.strerror or e}") from None
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        return
    scope = _SCOPE.get()
    target = os.path.realpath(name)
    directory, base = os.path.split(target)
    st = problem = fd = tmp = None
    try:
        try:
            st = os.stat(target)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise error(f"{name}: is {_what_is(st.st_mode)}, not a regular file; rlaccel "
                        f"writes only regular files")
        fd, tmp = _temporary(directory, base, suffix)
    except (OSError, RlaccelError) as e:
        problem = e if isinstance(e, RlaccelError) else _oserror(name, directory, e, error)
        if scope is None:
            raise problem from None
        fd, tmp = scope.new_file(name, problem)      # the writer writes the rescue file
    try:
        try:
            yield tmp
        except OSError as e:
            raise error(f"{name}: cannot write: {e.strerror or e}") from None
        if problem is not None:                      # written into the rescue file
            try:
                os.fsync(fd)
            except OSError as e:
                raise error(f"{problem}; the rescue file {tmp} failed too: "
                            f"{e.strerror or e}") from None
            scope.saved(name, problem, tmp)
            tmp = None
            return
        try:
            os.fsync(fd)
            if st is not None and st.st_nlink > 1:
                made, tmp = tmp, None                # kept if the copy fails
                tmp = _copy_in_place(fd, made, target, name, error, scope)
            else:
                if st is not None:
                    _keep_mode(fd, st)
                os.replace(tmp, target)
                tmp = None
        except OSError as e:
            problem = _oserror(name, directory, e, error)
            if scope is None:
                raise problem from None
            scope.save(name, problem, lambda out: _copy(fd, out))
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _copy_in_place(fd: int, tmp: str, target: str, name: str, error, scope) -> str | None:
    """Copy the finished temporary file ``fd`` (``tmp``) into ``target`` itself, which has
    several hard links (they all keep seeing it). Returns the temporary file to remove, or
    None when the copy failed and it stays, under a visible name, as the only complete copy
    (the error, or the rescue scope, says where)."""
    size = os.fstat(fd).st_size
    out = None
    try:
        out = os.open(target, os.O_WRONLY)
        vfs = os.fstatvfs(out)
        grow = size - os.fstat(out).st_size
        if grow > 0 and grow > vfs.f_bavail * vfs.f_frsize:
            raise OSError(28, os.strerror(28))          # checked before the file is touched
        offset = 0
        while chunk := os.pread(fd, 1 << 20, offset):
            done = 0
            while done < len(chunk):
                done += os.pwrite(out, chunk[done:], offset + done)
            offset += len(chunk)
        os.ftruncate(out, size)
        os.fsync(out)
        return tmp
    except OSError as e:
        kept = _keep_copy(tmp, name)
        problem = error(f"{name}: cannot write in place (the file has several hard links): "
                        f"{e.strerror or e}; its complete new contents are in {kept}")
        if scope is None:
            raise problem from None
        scope.saved(name, problem, kept)
        return None
    finally:
        if out is not None:
            os.close(out)


def _keep_copy(tmp: str, name: str) -> str:
    """A visible name for the temporary file that holds the only complete copy."""
    stem, suffix = os.path.splitext(os.path.basename(name) or "output")
    kept = os.path.join(os.path.dirname(tmp), f"{stem}.rescued-{os.urandom(4).hex()}{suffix}")
    try:
        os.rename(tmp, kept)
        return kept
    except OSError:
        return tmp


def _write_all(fd: int, blob) -> None:
    view = memoryview(blob)
    while view:
        view = view[os.write(fd, view):]


def _copy(src: int, dst: int) -> None:
    """The whole contents of the open file ``src`` into ``dst``."""
    offset = 0
    while chunk := os.pread(src, 1 << 20, offset):
        _write_all(dst, chunk)
        offset += len(chunk)


def _shown_dir(name: str, directory: str) -> str:
    """The directory of ``name`` as the user wrote it, unless a link makes it another."""
    typed = os.path.dirname(name) or os.curdir
    return typed if os.path.realpath(typed) == directory else directory


def _oserror(name: str, directory: str, e: OSError, error) -> RlaccelError:
    if not os.path.isdir(directory):
        return error(f"{name}: cannot write: directory {_shown_dir(name, directory)} does not "
                     f"exist")
    return error(f"{name}: cannot write: {e.strerror or e}")


def _temporary(directory: str, base: str, suffix: str = ".tmp") -> tuple[int, str]:
    """A new, empty file ``.BASE.XXXXXXXX.tmp`` in ``directory``, created with the umask's
    permissions (not a temporary file's 0600)."""
    for _ in range(100):
        candidate = os.path.join(directory, f".{base}.{os.urandom(4).hex()}{suffix}")
        try:
            return os.open(candidate, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666), candidate
        except FileExistsError:
            continue
    raise FileExistsError(17, f"cannot create a temporary file in {directory}")


def _keep_mode(fd: int, st: os.stat_result) -> None:
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except OSError:
        pass                 # not ours to give away: the file keeps our owner
    os.fchmod(fd, stat.S_IMODE(st.st_mode))


def what_is(mode: int) -> str:
    """What a file of ``mode`` is, in words: ``a directory``, ``a FIFO``..."""
    return _what_is(mode)


def _what_is(mode: int) -> str:
    for test, words in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a regular file"


def _pairs(items) -> list[tuple[str, str]]:
    """(label, path) pairs from a mapping or an iterable of pairs; None paths skipped."""
    pairs = items.items() if isinstance(items, Mapping) else items
    return [(label, os.fspath(p)) for label, p in pairs if p is not None]


def check_outputs(outputs: Mapping[str, str | os.PathLike | None]
                  | Iterable[tuple[str, str | os.PathLike | None]],
                  inputs: Mapping[str, str | os.PathLike | None]
                  | Iterable[tuple[str, str | os.PathLike | None]] = (),
                  error: type[RlaccelError] = OutputError) -> None:
    """Refuse, before any work is done, outputs that could not or must not be written.

    ``outputs`` and ``inputs`` are ``{label: path}`` (or ``(label, path)`` pairs; ``None``
    paths are skipped); labels name them in messages, e.g. ``{"-o": out, "--listing": lst}``
    and ``{"the source": src, "the include file": inc}``. Raises ``error`` (exit status 1 on
    the command line) when:

    * an output has an empty name;
    * an output exists and is not a regular file (directory, device, FIFO, socket);
    * an output is one of the inputs: the same path, or the same file through a symbolic
      or hard link (compared by device and inode);
    * two outputs are the same file;
    * an output's directory does not exist, or cannot be written (a probe file is created
      there and removed at once: nothing permanent is left);
    * an output exists and is read-only.

    A verb calls it once before it starts, with every input it knows of, and may call it
    again once it knows more inputs (the include files of a source).
    """
    outs, ins = _pairs(outputs), _pairs(inputs)
    in_ids = []
    for label, p in ins:
        try:
            st = os.stat(p)
            ident = (st.st_dev, st.st_ino)
        except OSError:
            ident = None                 # not there (its reader's error): compared by name
        in_ids.append((label, p, ident, os.path.realpath(p)))
    seen: list[tuple[str, str, tuple | None, str]] = []
    for label, p in outs:
        if not p:
            raise error(f"{label}: the file name is empty")
        real = os.path.realpath(p)
        try:
            st = os.stat(real)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        except OSError as e:
            raise error(f"{p}: {label}: cannot use this file: {e.strerror or e}") from None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise error(f"{p}: {label} is {_what_is(st.st_mode)}, not a regular file")
        ident = (st.st_dev, st.st_ino) if st is not None else None
        for in_label, in_p, in_ident, in_real in in_ids:
            if real == in_real or (ident is not None and ident == in_ident):
                also = "" if p == in_p else f" {in_p}"
                raise error(f"{p}: {label} would overwrite {in_label}{also}; choose another "
                            f"file")
        for o_label, o_p, o_ident, o_real in seen:
            if real == o_real or (ident is not None and ident == o_ident):
                raise error(f"{p}: {o_label} and {label} name the same file")
        seen.append((label, p, ident, real))
        _probe(p, label, real, st, error)


def check_output_dir(path: str | os.PathLike | None, label: str = "-o",
                     error: type[RlaccelError] = OutputError,
                     inputs: Mapping[str, str | os.PathLike | None]
                     | Iterable[tuple[str, str | os.PathLike | None]] = (),
                     writes: Iterable[str] = ()) -> None:
    """Refuse, before any work is done, an output directory that could not be used: it
    exists and is not a directory, or it does not exist and its nearest existing parent is
    not a directory or cannot be written (it is created when the results are written); or
    one of the verb's ``inputs`` (``{label: path}``) lies in it under a name the verb
    writes there (``writes``: names or patterns such as ``report.md``, ``*.png``)."""
    if path is None:
        return
    name = os.fspath(path)
    if not name:
        raise error(f"{label}: the directory name is empty")
    real = os.path.realpath(name)
    writes = tuple(writes)
    for in_label, p in _pairs(inputs):
        where = os.path.realpath(p)
        if os.path.dirname(where) == real and any(fnmatch.fnmatchcase(os.path.basename(where),
                                                                      w) for w in writes):
            raise error(f"{p}: {label} {name} would overwrite {in_label} (the directory "
                        f"gets {', '.join(writes)}); choose another {label} or move it")
    if os.path.exists(real):
        if not os.path.isdir(real):
            raise error(f"{name}: {label} must be a directory, not a file")
        probe_in = real
    else:
        probe_in = real
        while not os.path.exists(probe_in):
            probe_in = os.path.dirname(probe_in)
        if not os.path.isdir(probe_in):
            raise error(f"{name}: {label}: {probe_in} is not a directory")
    try:
        fd, tmp = _temporary(probe_in, "probe")
    except OSError as e:
        raise error(f"{name}: {label}: cannot write in directory {probe_in}: "
                    f"{e.strerror or e}") from None
    os.close(fd)
    os.unlink(tmp)


def _probe(p: str, label: str, real: str, st, error) -> None:
    directory = os.path.dirname(real)
    shown = _shown_dir(p, directory)
    if not os.path.isdir(directory):
        if os.path.exists(directory):
            raise error(f"{p}: {label}: {shown} is not a directory")
        raise error(f"{p}: {label}: directory {shown} does not exist")
    try:
        fd, tmp = _temporary(directory, os.path.basename(real))
    except OSError as e:
        raise error(f"{p}: {label}: cannot write in directory {shown}: "
                    f"{e.strerror or e}") from None
    os.close(fd)
    os.unlink(tmp)
    if st is not None and not os.access(real, os.W_OK):
        raise error(f"{p}: {label} is read-only")


# ------------------------------------------------------------------------------- rescue

class _Rescue:
    """What :func:`rescuing` saved: files under ``root`` go into one new directory
    ``ROOT-NAME.rescued-XXXXXXXX`` (with their paths below ``root``), any other file into a
    new file ``STEM.rescued-XXXXXXXX.SUFFIX``; both in ``beside`` (default: the current
    directory), else in the system's temporary directory."""

    def __init__(self, root, beside, error: type[RlaccelError]):
        self.root = os.path.realpath(root) if root is not None else None
        self.shown_root = os.fspath(root) if root is not None else None
        self.places = [os.fspath(beside) if beside is not None else os.curdir,
                       tempfile.gettempdir()]
        self.error = error
        self.dir: str | None = None               # the rescue directory of root's files
        self.dir_tried: list[str] | None = None   # where it could not be made
        #: (name, why it could not be written, where it is now or None, places tried)
        self.records: list[tuple[str, str, str | None, str]] = []

    def _under_root(self, name: str) -> str | None:
        if self.root is None:
            return None
        real = os.path.realpath(name)
        if real.startswith(self.root + os.sep):
            return os.path.relpath(real, self.root)
        return None

    def new_file(self, name: str, problem: RlaccelError) -> tuple[int, str]:
        """A new, empty file (open for reading and writing) to save ``name`` in; when there
        is no place at all, records that and raises :class:`_Unsaved`."""
        rel = self._under_root(name)
        tried: list[str] = []
        if rel is not None:
            if self.dir is None and self.dir_tried is None:
                self.dir_tried = []
                self.dir = self._first(lambda d: os.path.abspath(tempfile.mkdtemp(
                    prefix=f"{os.path.basename(self.root)}.rescued-", dir=d)), self.dir_tried)
            if self.dir is None:
                tried = self.dir_tried
            else:
                p = os.path.join(self.dir, rel)
                try:
                    os.makedirs(os.path.dirname(p), exist_ok=True)
                    return os.open(p, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666), p
                except OSError as e:
                    tried.append(f"{p} ({e.strerror or e})")
        if not tried:
            stem, suffix = os.path.splitext(os.path.basename(name) or "output")
            made = self._first(lambda d: tempfile.mkstemp(prefix=f"{stem}.rescued-",
                                                          suffix=suffix, dir=d), tried)
            if made is not None:
                return made
        self.records.append((name, str(problem), None, ", ".join(tried)))
        raise _Unsaved(str(problem))

    def _first(self, make, tried: list):
        for d in self.places:
            try:
                return make(d)
            except OSError as e:
                tried.append(f"{d} ({e.strerror or e})")
        return None

    def saved(self, name: str, problem: RlaccelError, where: str) -> None:
        self.records.append((name, str(problem), where, ""))

    def save(self, name: str, problem: RlaccelError, fill: Callable[[int], None]) -> None:
        """Save ``name`` elsewhere: ``fill(fd)`` writes its contents into the rescue file."""
        if isinstance(problem, _Unsaved):
            return                                   # recorded where it happened
        try:
            fd, where = self.new_file(name, problem)
        except _Unsaved:
            return
        try:
            fill(fd)
            os.fsync(fd)
        except OSError as e:
            os.close(fd)
            os.unlink(where)
            self.records.append((name, str(problem), None, f"{where} ({e.strerror or e})"))
            return
        os.close(fd)
        self.saved(name, problem, where)

    def rewrite(self, name: str, problem: RlaccelError, writer: Callable[[str], None]) -> None:
        """Save ``name`` elsewhere by calling ``writer(rescue file name)`` again."""
        try:
            fd, where = self.new_file(name, problem)
        except _Unsaved:
            return
        os.close(fd)
        token = _SCOPE.set(None)
        try:
            writer(where)
        except (OSError, RlaccelError) as e:
            os.unlink(where)
            self.records.append((name, str(problem), None,
                                 f"{where} ({getattr(e, 'strerror', None) or e})"))
            return
        finally:
            _SCOPE.reset(token)
        self.saved(name, problem, where)

    def rescued(self, name: str) -> bool:
        return any(n == name for n, _, _, _ in self.records)

    def message(self) -> str:
        """For each file not written: why, and where it is now (files saved in the rescue
        directory, and files saved nowhere, told together)."""
        parts, in_dir, nowhere = [], [], []
        for n, why, where, tried in self.records:
            if where is None:
                nowhere.append((n, why, tried))
            elif self.dir is not None and where.startswith(self.dir + os.sep):
                in_dir.append((n, why))
            else:
                parts.append(f"{why}; saved in {where} instead")
        if in_dir:
            names = ", ".join(self._under_root(n) or n for n, _ in in_dir)
            parts.insert(0, f"{in_dir[0][1]}; {len(in_dir)} file(s) of {self.shown_root} "
                            f"saved in {self.dir}{os.sep} instead: {names}")
        if nowhere:
            others = f" (and {', '.join(n for n, _, _ in nowhere[1:])})" if nowhere[1:] else ""
            parts.append(f"{nowhere[0][1]}{others}; could not save it anywhere else either "
                         f"(tried {nowhere[0][2]})")
        return "; ".join(parts)


class _Unsaved(RlaccelError):
    """A file that could not be written nor saved anywhere else (its rescue record says
    so)."""


_SCOPE: ContextVar[_Rescue | None] = ContextVar("rlaccel_rescue", default=None)


@contextmanager
def rescuing(root: str | os.PathLike | None = None, beside: str | os.PathLike | None = None,
             error: type[RlaccelError] = OutputError) -> Iterator[_Rescue]:
    """The end of a long run: inside the block, every file that :func:`atomic_write` or
    :func:`atomic_output` cannot write (its directory removed or made read-only during the
    run, the disk full) is saved elsewhere instead and the block goes on; when it ends,
    ``error`` is raised saying, for each such file, why and where its contents are now::

        out/r/report.json: cannot write: directory out/r does not exist; 5 file(s) of out/r
        saved in ./r.rescued-1a2b3c4d/ instead: report.json, report.md, fig9.png, ...

    Files under ``root`` (a verb's output directory) are saved together in one new
    directory, with their paths below ``root``; others as ``STEM.rescued-XXXXXXXX.SUFFIX``.
    The rescue goes to ``beside`` (default: the current directory, where the run was
    started), else to the system's temporary directory. Meant for the end of a long run
    whose outputs :func:`check_outputs` or :func:`check_output_dir` accepted before it
    started: results are never lost."""
    scope = _Rescue(root, beside, error)
    token = _SCOPE.set(scope)
    try:
        yield scope
    except _Unsaved:                     # a writer stopped: nowhere to write its file
        raise error(scope.message()) from None
    except RlaccelError as exc:
        if scope.records:
            raise error(f"{exc}; also: {scope.message()}") from None
        raise
    finally:
        _SCOPE.reset(token)
    if scope.records:
        raise error(scope.message())


def save_or_rescue(items: Iterable[tuple[str | os.PathLike | None,
                                         bytes | str | memoryview | Callable[[str], None] | None]],
                   beside: str | os.PathLike | None = None,
                   error: type[RlaccelError] = OutputError) -> list[str]:
    """Write every ``(path, contents)`` with :func:`atomic_write` inside :func:`rescuing`:
    what cannot be written is saved in a new file ``STEM.rescued-XXXXXXXX.SUFFIX`` in
    ``beside`` (default: the current directory; the system's temporary directory if that
    fails too).

    ``contents`` may also be a writer, ``writer(path)``, that writes the file itself with
    :func:`atomic_write` (a trace that streams its own bytes); it is called again with the
    rescue file's name when it fails. Pairs whose path is None (an output the user did not
    ask for) are skipped.

    Returns the paths written. If any could not be written, raises ``error`` once all have
    been tried, saying for each why and where its contents are now, e.g.::

        out/run.json: cannot write: No space left on device; saved in
        ./run.rescued-1a2b3c4d.json instead

    Meant for the end of a long run (``rlaccel run --json/--trace``), after
    :func:`check_outputs` was called before it started: results are never lost.
    """
    written = []
    with rescuing(beside=beside, error=error) as scope:
        for path, blob in items:
            if path is None:
                continue
            name = os.fspath(path)
            if callable(blob):
                try:
                    blob(name)
                except RlaccelError as exc:
                    scope.rewrite(name, exc, blob)
            else:
                data = blob.encode() if isinstance(blob, str) else blob
                try:
                    atomic_write(name, data, error)
                except RlaccelError as exc:      # a writer of its own failed some other way
                    scope.save(name, exc, lambda fd: _write_all(fd, data))
            if not scope.rescued(name):
                written.append(name)
    return written


def make_output_dir(path: str | os.PathLike, error: type[RlaccelError] = OutputError) -> Path:
    """Create the output directory ``path`` (and its parents) and return it. Inside
    :func:`rescuing` a failure is left to the writes that follow (their files are rescued);
    elsewhere it raises ``error``."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        if _SCOPE.get() is None:
            raise error(f"{out}: cannot create the directory: {e.strerror or e}") from None
    return out


# ------------------------------------------------------------------------------- reading

class _Unreadable(Exception):
    """Why a file cannot be read (the caller puts it in its own error)."""


def _read(name: str, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes. Opened without blocking, so a
    FIFO is refused rather than waited on; a device is never read."""
    if not name:
        raise _Unreadable(f"the {what} name is empty")
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise _Unreadable(f"no such {what}") from None
    except OSError as e:
        raise _Unreadable(f"cannot read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Unreadable(f"is {_what_is(st.st_mode)}, not {_a(what)}")
        if st.st_size > limit:
            raise _Unreadable(f"is {st.st_size:,} bytes, larger than the {limit:,} bytes "
                              f"{_a(what)} may have")
        return _read_chunks(fd, limit, what)
    except MemoryError:
        raise _Unreadable(f"is {st.st_size:,} bytes, more than this process has the memory "
                          f"to read") from None
    except OSError as e:
        raise _Unreadable(f"cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)


#: bytes read at a time: a file is read as it is, never into a buffer of its limit's size
_CHUNK = 1 << 20


def _read_chunks(fd: int, limit: int, what: str) -> bytes:
    """The bytes of the open file ``fd``, read in chunks: memory is taken for what the file
    holds, never reserved for ``limit`` (a 4 GiB limit must not cost 4 GiB of address
    space); a file that grows past ``limit`` while it is read is refused."""
    parts, total = [], 0
    while True:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        total += len(chunk)
        if total > limit:                # grew while we read it
            raise _Unreadable(f"is larger than the {limit:,} bytes {_a(what)} may have")


def _a(what: str) -> str:
    return f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"


def read_bytes(path: str | os.PathLike, error: type[RlaccelError], what: str = "file",
               limit: int = 1 << 32) -> bytes:
    """The contents of a regular file; anything else (missing, a directory, a device, a
    FIFO, more than ``limit`` bytes) raises ``error("PATH: why")``."""
    name = os.fspath(path)
    try:
        return _read(name, limit, what)
    except _Unreadable as exc:
        raise error(f"{name}: {exc}" if name else str(exc)) from None


def read_text(path: str | os.PathLike, what: str = "source file",
              error: type[SourceError] = SourceError, limit: int = MAX_TEXT_BYTES) -> str:
    """UTF-8 text of a regular file (a leading byte-order mark is dropped).

    ``error`` is a :class:`~rlaccel.util.errors.SourceError` class: a file that cannot be
    read raises ``error(why, path)``; a byte that is not UTF-8 raises it at that byte's line
    and column, with the line shown (bad bytes as U+FFFD) and a caret.
    """
    name = os.fspath(path)
    try:
        blob = _read(name, limit, what)
    except _Unreadable as exc:
        raise error(str(exc), name or "<input>", 0, 0) from None
    try:
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start
        line_start = blob.rfind(b"\n", 0, start) + 1
        line_end = blob.find(b"\n", start)
        text = blob[line_start:line_end if line_end >= 0 else len(blob)]
        shown = text.decode("utf-8", "replace")
        col = len(blob[line_start:start].decode("utf-8", "replace")) + 1
        raise error(f"not UTF-8 text (byte 0x{blob[start]:02x}); is this a text file?",
                    name, blob.count(b"\n", 0, start) + 1, col, shown) from None


def read_toml(path: Path, error: type[RlaccelError], what: str) -> dict:
    """A TOML file as a table; a missing, unreadable or malformed file raises ``error``
    naming the path (architecture files here, run manifests in ``programs/``)."""
    try:
        blob = _read(os.fspath(path), MAX_TEXT_BYTES, what)
    except _Unreadable as exc:
        raise error(f"{path}: {exc}") from None
    try:
        return tomllib.loads(blob.decode())
    except UnicodeDecodeError as exc:
        line = blob.count(b"\n", 0, exc.start) + 1
        col = exc.start - (blob.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error(f"{path}:{line}:{col}: not UTF-8 text (byte 0x{blob[exc.start]:02x}); "
                    f"is this a text file?") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise error(f"{path}: not valid TOML: nested too deeply") from None

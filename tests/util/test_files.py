"""Reading and writing files: outputs are checked before any work, never replace an input,
a device or a directory, keep their permissions and links; results that cannot be written
are rescued; inputs are regular files of bounded size, and bad UTF-8 is located."""

import os
import stat

import pytest

from rlaccel.util.errors import AsmError, OutputError, RlaccelError, SourceError
from rlaccel.util import files
from rlaccel.util.files import (atomic_write, check_outputs, read_bytes, read_text, read_toml,
                                save_or_rescue)


# ----------------------------------------------------------------------------- atomic_write

def test_replacing_keeps_the_permissions(tmp_path):
    p = tmp_path / "x.lst"
    p.write_text("old")
    p.chmod(0o640)
    atomic_write(p, "new")
    assert p.read_text() == "new"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640


def test_a_new_file_gets_the_umask_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "n", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "n").stat().st_mode) == 0o640


def test_a_symbolic_link_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "real.rlb"
    target.write_text("old")
    link = tmp_path / "link.rlb"
    link.symlink_to(target)
    atomic_write(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"


def test_a_dangling_link_creates_its_target(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "later")
    atomic_write(link, "x")
    assert link.is_symlink() and (tmp_path / "later").read_text() == "x"


def test_hard_links_are_kept(tmp_path):
    """A file with several hard links is written in place: every link sees the new contents,
    the inode and the permissions stay, no temporary file is left."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("old contents, longer than the new")
    a.chmod(0o640)
    os.link(a, b)
    ino = a.stat().st_ino
    atomic_write(a, "new")
    assert (a.read_text(), b.read_text()) == ("new", "new")
    assert a.stat().st_ino == ino and a.stat().st_nlink == 2
    assert stat.S_IMODE(b.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


def test_hard_links_a_failed_copy_says_where_the_contents_are(tmp_path, monkeypatch):
    a, b = tmp_path / "a.rlb", tmp_path / "b.rlb"
    a.write_text("old")
    os.link(a, b)

    def full(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(files.os, "pwrite", full)
    with pytest.raises(OutputError) as e:
        atomic_write(a, "new", OutputError)
    kept = [p for p in tmp_path.iterdir() if ".rescued-" in p.name]
    assert len(kept) == 1 and kept[0].read_text() == "new"
    assert str(e.value) == (f"{a}: cannot write in place (the file has several hard links): "
                            f"No space left on device; its complete new contents are in "
                            f"{kept[0]}")


def test_reading_does_not_reserve_the_limit(tmp_path):
    """A file is read in chunks: a 4 GiB limit costs nothing under an address-space limit
    (the root cause of every rlaccel dis failing under ulimit -v 3000000)."""
    import subprocess
    import sys
    p = tmp_path / "small"
    p.write_bytes(b"x" * 1000)
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (3_000_000_000, 3_000_000_000))\n"
            "from rlaccel.util.files import read_bytes\n"
            "from rlaccel.util.errors import RlaccelError\n"
            f"assert len(read_bytes({str(p)!r}, RlaccelError, 'file', 0xFFFFFFFF)) == 1000\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_file_that_grows_past_its_limit_while_read_is_refused(tmp_path, monkeypatch):
    p = tmp_path / "f"
    p.write_bytes(b"x" * 10)
    real = os.read
    calls = []

    def growing(fd, n):
        calls.append(n)
        return b"y" * n if len(calls) < 4 else real(fd, n)
    monkeypatch.setattr(files.os, "read", growing)
    with pytest.raises(RlaccelError, match=r"is larger than the 16 bytes a file may have$"):
        read_bytes(p, RlaccelError, "file", 16)


@pytest.mark.parametrize("make, what", [
    (lambda p: p.mkdir(), "a directory"),
    (lambda p: os.mkfifo(p), "a FIFO"),
])
def test_never_replaces_a_non_regular_file(tmp_path, make, what):
    p = tmp_path / "thing"
    make(p)
    with pytest.raises(RlaccelError, match=f"^{p}: is {what}, not a regular file; rlaccel "
                                           f"writes only regular files$"):
        atomic_write(p, "x")
    assert not p.is_file()
    assert os.listdir(tmp_path) == ["thing"]


def test_a_device_is_refused(tmp_path):
    """A link to /dev/null is followed to the device, which is refused (never replaced)."""
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    with pytest.raises(RlaccelError, match=f"^{link}: is a character device, not a regular"):
        atomic_write(link, "x")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_missing_directory_is_named(tmp_path):
    p = tmp_path / "none" / "x"
    with pytest.raises(OutputError, match=f"^{p}: cannot write: directory {p.parent} does "
                                          f"not exist$"):
        atomic_write(p, "x", OutputError)


# ----------------------------------------------------------------------------- check_outputs

def _check(tmp_path, outputs, inputs=()):
    with pytest.raises(OutputError) as info:
        check_outputs(outputs, inputs)
    return str(info.value).replace(str(tmp_path), "T")


def test_outputs_that_are_fine_leave_nothing_behind(tmp_path):
    (tmp_path / "old.rlb").write_text("x")
    check_outputs({"-o": tmp_path / "old.rlb", "--listing": tmp_path / "new.lst",
                   "--json": None}, {"the source": tmp_path / "old.s"})
    assert sorted(os.listdir(tmp_path)) == ["old.rlb"]


def test_an_output_that_is_an_input(tmp_path):
    src = tmp_path / "s.s"
    src.write_text(".arch adhdp\n")
    assert _check(tmp_path, {"--listing": src}, {"the source": src}) == \
        "T/s.s: --listing would overwrite the source; choose another file"


def test_an_output_that_is_a_link_to_an_input(tmp_path):
    src = tmp_path / "s.s"
    src.write_text("x")
    os.link(src, tmp_path / "hard.s")
    (tmp_path / "soft.s").symlink_to(src)
    assert _check(tmp_path, {"-o": tmp_path / "hard.s"}, {"the source": src}) == \
        "T/hard.s: -o would overwrite the source T/s.s; choose another file"
    assert _check(tmp_path, {"-o": tmp_path / "soft.s"}, [("the include file", src)]) == \
        "T/soft.s: -o would overwrite the include file T/s.s; choose another file"


def test_two_outputs_that_are_the_same_file(tmp_path):
    x = tmp_path / "x"
    assert _check(tmp_path, [("-o", x), ("--listing", f"{tmp_path}/./x")]) == \
        "T/./x: -o and --listing name the same file"


@pytest.mark.parametrize("make, what", [
    (lambda p: p.mkdir(), "a directory"),
    (lambda p: os.mkfifo(p), "a FIFO"),
])
def test_non_regular_outputs(tmp_path, make, what):
    make(tmp_path / "o")
    assert _check(tmp_path, {"--json": tmp_path / "o"}) == \
        f"T/o: --json is {what}, not a regular file"


def test_device_output(tmp_path):
    with pytest.raises(OutputError, match="^/dev/null: -o is a character device, not a "
                                          "regular file$"):
        check_outputs({"-o": "/dev/null"})


def test_output_in_a_missing_directory(tmp_path):
    assert _check(tmp_path, {"--vcd": tmp_path / "no" / "w.vcd"}) == \
        "T/no/w.vcd: --vcd: directory T/no does not exist"
    (tmp_path / "f").write_text("")
    assert _check(tmp_path, {"--vcd": tmp_path / "f" / "w.vcd"}) == \
        "T/f/w.vcd: --vcd: T/f is not a directory"


def test_empty_output_name(tmp_path):
    assert _check(tmp_path, {"-o": ""}) == "-o: the file name is empty"


def test_unwritable_directory_and_read_only_file(tmp_path, monkeypatch):
    """(Run as root the kernel lets everything through, so the failures are simulated.)"""
    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "_temporary", refuse)
    assert _check(tmp_path, {"--json": tmp_path / "r.json"}) == \
        "T/r.json: --json: cannot write in directory T: Permission denied"
    monkeypatch.undo()
    (tmp_path / "ro").write_text("")
    monkeypatch.setattr(files.os, "access", lambda *a: False)
    assert _check(tmp_path, {"-o": tmp_path / "ro"}) == "T/ro: -o is read-only"


# ----------------------------------------------------------------------------- save_or_rescue

def test_save_writes_every_file(tmp_path):
    out = save_or_rescue([(tmp_path / "a.json", "{}"), (tmp_path / "b.json", b"[]")])
    assert out == [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    assert (tmp_path / "b.json").read_text() == "[]"


def test_what_cannot_be_written_is_rescued_beside_the_run(tmp_path):
    (tmp_path / "run").mkdir()
    gone = tmp_path / "gone" / "r.json"
    with pytest.raises(OutputError) as info:
        save_or_rescue([(gone, '{"cycles": 1}'), (tmp_path / "ok.json", "1")],
                       beside=tmp_path / "run")
    msg = str(info.value)
    rescued = list((tmp_path / "run").iterdir())
    assert len(rescued) == 1 and rescued[0].name.startswith("r.rescued-")
    assert rescued[0].suffix == ".json" and rescued[0].read_text() == '{"cycles": 1}'
    assert msg == (f"{gone}: cannot write: directory {gone.parent} does not exist; saved in "
                   f"{rescued[0]} instead")
    assert (tmp_path / "ok.json").read_text() == "1"     # the others are still written


def test_rescue_falls_back_to_the_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(files.tempfile, "gettempdir", lambda: str(tmp_path))
    with pytest.raises(OutputError, match=r"; saved in .*/t\.rescued-\w+\.trace instead$"):
        save_or_rescue([(tmp_path / "no" / "t.trace", "x")], beside=tmp_path / "missing")


# ----------------------------------------------------------------------------- reading

def test_read_text_refuses_devices_fifos_and_directories(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    for p, what in (("/dev/zero", "a character device"), (tmp_path / "fifo", "a FIFO"),
                    (tmp_path, "a directory")):
        with pytest.raises(SourceError, match=f"^{p}: is {what}, not a source file$"):
            read_text(p)


def test_read_text_missing_empty_and_too_large(tmp_path):
    with pytest.raises(AsmError, match=f"^{tmp_path}/x.s: no such source file$"):
        read_text(tmp_path / "x.s", error=AsmError)
    with pytest.raises(SourceError, match="^<input>: the source file name is empty$"):
        read_text("")
    (tmp_path / "big").write_text("x" * 11)
    with pytest.raises(SourceError, match="is 11 bytes, larger than the 10 bytes an include "
                                          "file may have$"):
        read_text(tmp_path / "big", "include file", limit=10)


def test_read_text_locates_a_byte_that_is_not_utf8(tmp_path):
    p = tmp_path / "l1.inc"
    p.write_bytes(b".equ A, 1\n.equ B\xe9, 2\n")
    with pytest.raises(AsmError) as info:
        read_text(p, "include file", AsmError)
    assert str(info.value) == (f"{p}:2:7: not UTF-8 text (byte 0xe9); is this a text file?\n"
                               f"    .equ B\ufffd, 2\n"
                               f"          ^")


def test_read_text_drops_a_byte_order_mark(tmp_path):
    (tmp_path / "b.s").write_bytes(b"\xef\xbb\xbf.arch adhdp\n")
    assert read_text(tmp_path / "b.s") == ".arch adhdp\n"


def test_read_bytes_and_read_toml(tmp_path):
    with pytest.raises(RlaccelError, match="^/dev/zero: is a character device, not a binary$"):
        read_bytes("/dev/zero", RlaccelError, "binary")
    with pytest.raises(RlaccelError, match="^/dev/zero: is a character device, not a "
                                           "manifest$"):
        read_toml("/dev/zero", RlaccelError, "manifest")
    (tmp_path / "m.toml").write_text("a = [" * 5000)
    with pytest.raises(RlaccelError, match="not valid TOML"):
        read_toml(tmp_path / "m.toml", RlaccelError, "manifest")


# ---- output directories and writers that write their own file

def test_an_output_directory_is_checked_before_the_work(tmp_path):
    (tmp_path / "f").write_text("x")
    files.check_output_dir(tmp_path / "new" / "deeper")          # created later: fine
    files.check_output_dir(tmp_path)
    with pytest.raises(OutputError, match=r"f: -o must be a directory, not a file"):
        files.check_output_dir(tmp_path / "f")
    with pytest.raises(OutputError, match=r"f/r: -o: .*/f is not a directory"):
        files.check_output_dir(tmp_path / "f" / "r")
    assert sorted(os.listdir(tmp_path)) == ["f"]                   # the probe left nothing


def test_a_writer_that_fails_is_called_again_for_the_rescue_file(tmp_path):
    """A trace writes its own file: when its path cannot be written, the same writer saves
    it beside the run, and None paths (outputs not asked for) are skipped."""
    calls = []

    def writer(path):
        calls.append(path)
        if path == str(tmp_path / "t.json"):
            raise OutputError(f"{path}: cannot write: Read-only file system")
        atomic_write(path, "trace")

    with pytest.raises(OutputError) as e:
        files.save_or_rescue([(str(tmp_path / "t.json"), writer), (None, "skipped")],
                             beside=tmp_path)
    rescued = [p for p in os.listdir(tmp_path) if p.startswith("t.rescued-")]
    assert len(rescued) == 1 and (tmp_path / rescued[0]).read_text() == "trace"
    assert str(e.value) == (f"{tmp_path / 't.json'}: cannot write: Read-only file system; "
                            f"saved in {tmp_path / rescued[0]} instead")
    assert len(calls) == 2


# ---- rescuing: the end of a long run

def test_rescuing_a_writer_of_its_own_whose_directory_is_removed(tmp_path, monkeypatch):
    """A VCD tracer writes its file during the run; the directory is removed meanwhile: the
    file, held open, is copied beside the run."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w").mkdir()
    with pytest.raises(OutputError) as e:
        with files.rescuing():
            with files.atomic_output("w/t.vcd", OutputError, suffix=".vcd") as tmp:
                with open(tmp, "w") as f:
                    f.write("$timescale 1ns $end\n")
                    import shutil
                    shutil.rmtree(tmp_path / "w")
                    f.write("#1\n")
    rescued = [p for p in os.listdir(tmp_path) if p.startswith("t.rescued-")]
    assert len(rescued) == 1 and rescued[0].endswith(".vcd")
    assert (tmp_path / rescued[0]).read_text() == "$timescale 1ns $end\n#1\n"
    assert str(e.value) == (f"w/t.vcd: cannot write: directory w does not exist; saved in "
                            f"{tmp_path / rescued[0]} instead")


def test_rescuing_gives_a_writer_the_rescue_file_when_its_own_cannot_be_made(tmp_path,
                                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputError, match=r"^gone/t.vcd: cannot write: directory gone does "
                                          r"not exist; saved in /.*/t\.rescued-\w+\.vcd "
                                          r"instead$"):
        with files.rescuing():
            with files.atomic_output("gone/t.vcd", OutputError, suffix=".vcd") as tmp:
                with open(tmp, "w") as f:
                    f.write("x")
    (rescued,) = [p for p in os.listdir(tmp_path) if p.startswith("t.rescued-")]
    assert (tmp_path / rescued).read_text() == "x"


def test_rescuing_writes_normally_and_keeps_the_error_of_the_run(tmp_path):
    with files.rescuing(root=tmp_path):
        atomic_write(tmp_path / "a", "x")
    assert (tmp_path / "a").read_text() == "x"
    with pytest.raises(RlaccelError, match="^the run's own error$"):
        with files.rescuing(root=tmp_path):
            raise RlaccelError("the run's own error")


def test_make_output_dir(tmp_path):
    (tmp_path / "f").write_text("")
    assert files.make_output_dir(tmp_path / "a" / "b").is_dir()
    with pytest.raises(OutputError, match=r"f/d: cannot create the directory: Not a directory"):
        files.make_output_dir(tmp_path / "f" / "d")
    with files.rescuing(root=tmp_path / "f" / "d"):       # left to the writes that follow
        files.make_output_dir(tmp_path / "f" / "d")

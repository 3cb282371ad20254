"""Output safety: no verb writes over one of its inputs, over a device, FIFO or directory, or
two outputs into one file; an output that cannot be written is refused before any work; a
file replaced keeps its permissions, and a symbolic link keeps pointing at the file it names.
After every refusal the files are exactly as they were."""

import os
import stat

import pytest

from rlaccel.util import files

from tests.adversarial.conftest import Case

SRC = ".arch adhdp\n.data\nX: .zero 2\n.text\ncc.halt\n"
INC_SRC = '.arch adhdp\n.include "lay.inc"\n.text\ncc.halt\n'
E = "rlaccel asm: error: "


def _asm(id, message, *argv, files=None, status=1):
    return Case(id, ("asm", *argv), status, message, files or {"s.s": SRC})


CASES = [
    _asm("output-is-the-source", E + "s.s: -o would overwrite the source; choose another file",
         "s.s", "-o", "s.s"),
    _asm("listing-is-the-source",
         E + "s.s: --listing would overwrite the source; choose another file",
         "s.s", "--listing", "s.s"),
    _asm("output-is-the-source-spelled-otherwise",
         E + "./sub/../s.s: -o would overwrite the source s.s; choose another file",
         "s.s", "-o", "./sub/../s.s", files={"s.s": SRC, "sub/x": ""}),
    _asm("source-named-rlb-without-o",
         E + "x.rlb: the output (SRC.rlb, no -o given) would overwrite the source; choose "
             "another file", "x.rlb", files={"x.rlb": SRC}),
    _asm("output-and-listing-collide", E + "x: -o and --listing name the same file",
         "s.s", "-o", "x", "--listing", "x"),
    _asm("output-is-an-include",
         E + "lay.inc: -o would overwrite the include file; choose another file",
         "s.s", "-o", "lay.inc", files={"s.s": INC_SRC, "lay.inc": ".data\n.zero 1\n"}),
    _asm("listing-is-a-nested-include",
         E + "deep.inc: --listing would overwrite the include file; choose another file",
         "s.s", "--listing", "deep.inc",
         files={"s.s": INC_SRC, "lay.inc": '.include "deep.inc"\n', "deep.inc": ".data\n.zero 1\n"}),
    _asm("output-is-dev-null", E + "/dev/null: -o is a character device, not a regular file",
         "s.s", "-o", "/dev/null"),
    _asm("listing-is-a-directory", E + "d: --listing is a directory, not a regular file",
         "s.s", "--listing", "d", files={"s.s": SRC, "d/keep": "x"}),
    _asm("output-in-a-missing-directory", E + "no/x.rlb: -o: directory no does not exist",
         "s.s", "-o", "no/x.rlb"),
    _asm("output-under-a-file", E + "s.s/x.rlb: -o: s.s is not a directory",
         "s.s", "-o", "s.s/x.rlb"),
    _asm("output-empty", "rlaccel asm: error: argument -o/--output: the file name is empty",
         "s.s", "-o", "", status=2),
    Case("dis-output-is-the-binary", ("dis", "b.rlb", "-o", "b.rlb"), 1,
         "rlaccel dis: error: b.rlb: -o would overwrite the binary; choose another file",
         {"b.rlb": b"\x7fRLB"}),
    Case("dis-output-is-a-device", ("dis", "b.rlb", "-o", "/dev/null"), 1,
         "rlaccel dis: error: /dev/null: -o is a character device, not a regular file",
         {"b.rlb": b"\x7fRLB"}),
    Case("report-output-is-a-file", ("report", "adhdp", "-o", "m.toml", "--trials", "1", "-q"),
         1, "rlaccel report: error: m.toml: -o must be a directory, not a file",
         {"m.toml": "x = 1\n"}),
    Case("report-output-under-a-file", ("report", "fixar", "-o", "m.toml/r"), 1,
         "rlaccel report: error: m.toml/r: -o: " + "{tmp}/m.toml is not a directory",
         {"m.toml": "x = 1\n"}),
    Case("sweep-db-empty", ("sweep", "spec.toml", "--db", ""), 2,
         "rlaccel sweep: error: argument --db: the file name is empty", {"spec.toml": ""}),
    Case("dse-json-is-a-device", ("dse", "maddpg", "--manifest", "m.toml", "--json",
                                  "/dev/null"), 1,
         "rlaccel dse: error: /dev/null: --json is a character device, not a regular file",
         {"m.toml": "x = 1\n"}),
    Case("dse-json-over-the-manifest", ("dse", "maddpg", "--manifest", "m.toml", "--json",
                                        "m.toml"), 1,
         "rlaccel dse: error: m.toml: --json would overwrite the manifest; choose another file",
         {"m.toml": "x = 1\n"}),
    Case("cosim-vcd-is-a-device", ("cosim", "lane", "--n", "3", "--vcd", "/dev/null"), 1,
         "rlaccel cosim: error: /dev/null: --vcd is a character device, not a regular file"),
]


def _snapshot(root):
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_refused_and_nothing_changes(case, check, tmp_path):
    for name, content in case.files.items():           # created first to compare after
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content.encode() if isinstance(content, str)
                                      else content)
    before = _snapshot(tmp_path)
    message = case.message.replace("{tmp}", str(tmp_path))
    check(Case(case.id, case.argv, case.status, message))
    assert _snapshot(tmp_path) == before


def test_a_fifo_output_is_refused_without_blocking(cli, tmp_path):
    (tmp_path / "s.s").write_text(SRC)
    os.mkfifo(tmp_path / "f")
    status, out, err = cli(["asm", "s.s", "--listing", "f"], limit=20)
    assert (status, err) == (1, E + "f: --listing is a FIFO, not a regular file\n")
    assert stat.S_ISFIFO(os.stat(tmp_path / "f").st_mode)


def test_a_hard_link_to_the_source_is_the_source(cli, tmp_path):
    (tmp_path / "s.s").write_text(SRC)
    os.link(tmp_path / "s.s", tmp_path / "h.rlb")
    status, out, err = cli(["asm", "s.s", "-o", "h.rlb"])
    assert (status, err) == (1, E + "h.rlb: -o would overwrite the source s.s; choose another "
                                    "file\n")
    assert (tmp_path / "s.s").read_text() == SRC


def test_a_symbolic_link_to_the_source_is_the_source(cli, tmp_path):
    (tmp_path / "s.s").write_text(SRC)
    (tmp_path / "l.lst").symlink_to("s.s")
    status, out, err = cli(["asm", "s.s", "--listing", "l.lst"])
    assert (status, err) == (1, E + "l.lst: --listing would overwrite the source s.s; choose "
                                    "another file\n")


def test_replacing_keeps_permissions_and_links(cli, tmp_path):
    """The binary is written through a symbolic link into the file it names, which keeps its
    mode; the link stays a link."""
    (tmp_path / "s.s").write_text(SRC)
    (tmp_path / "real.rlb").write_text("old")
    (tmp_path / "real.rlb").chmod(0o604)
    (tmp_path / "link.rlb").symlink_to("real.rlb")
    assert cli(["asm", "s.s", "-o", "link.rlb"])[0] == 0
    assert (tmp_path / "link.rlb").is_symlink()
    assert (tmp_path / "real.rlb").read_bytes()[:4] == b"\x7fRLB"
    assert stat.S_IMODE((tmp_path / "real.rlb").stat().st_mode) == 0o604


def test_an_unwritable_directory_is_found_before_assembling(cli, tmp_path, monkeypatch):
    """The probe fails before any work: the assembler is never called. (Run as root, the
    kernel would let the write through, so the refusal is simulated.)"""
    (tmp_path / "s.s").write_text(SRC)
    import rlaccel.assembler.assemble as asm

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    def never(*a, **k):
        raise AssertionError("assembled before the outputs were checked")

    monkeypatch.setattr(files, "_temporary", refuse)
    monkeypatch.setattr(asm, "assemble_file", never)
    status, out, err = cli(["asm", "s.s", "-o", "x.rlb"])
    assert (status, err) == (1, E + "x.rlb: -o: cannot write in directory .: Permission "
                                    "denied\n")


def test_a_write_that_fails_keeps_the_old_file(cli, tmp_path, monkeypatch):
    """The disk fails while the binary is written: the old binary is intact and no
    temporary file is left behind."""
    (tmp_path / "s.s").write_text(SRC)
    (tmp_path / "x.rlb").write_text("old")

    def no_space(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", no_space)
    status, out, err = cli(["asm", "s.s", "-o", "x.rlb"])
    assert (status, err) == (1, E + "x.rlb: cannot write: No space left on device\n")
    assert (tmp_path / "x.rlb").read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["s.s", "x.rlb"]

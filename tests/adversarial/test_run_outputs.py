"""Output safety of ``rlaccel run`` (and ``--seeds``): the outputs are checked against every
input -- the manifest, the program, its include files -- before the run; a result that still
cannot be written at the end is saved beside the run, never lost."""

import json
import os
import stat

import pytest

from rlaccel.util import files

from tests.adversarial.conftest import Case, adhdp_files

E = "rlaccel run: error: "
FILES = adhdp_files()


def _run(id, message, *argv, status=1):
    return Case(id, ("run", "m.toml", "-q", *argv), status, message, FILES)


CASES = [
    _run("json-over-the-manifest", E + "m.toml: --json would overwrite the manifest; choose "
                                       "another file", "--json", "m.toml"),
    _run("trace-over-the-program", E + "cartpole.s: --trace would overwrite the program; "
                                       "choose another file", "--trace", "cartpole.s"),
    _run("json-over-a-nested-include", E + "fig2.inc: --json would overwrite the include file; "
                                           "choose another file", "--json", "fig2.inc"),
    _run("checkpoint-over-the-manifest", E + "m.toml: --checkpoint would overwrite the "
                                             "manifest; choose another file",
         "--checkpoint", "m.toml"),
    _run("json-and-trace-collide", E + "x.json: --json and --trace name the same file",
         "--json", "x.json", "--trace", "x.json"),
    _run("batch-json-over-the-manifest", E + "m.toml: --json would overwrite the manifest; "
                                             "choose another file",
         "--seeds", "1-2", "--json", "m.toml"),
    _run("json-into-a-missing-directory", E + "no/r.json: --json: directory no does not exist",
         "--json", "no/r.json"),
    _run("trace-dev-null", E + "/dev/null: --trace is a character device, not a regular file",
         "--trace", "/dev/null"),
    _run("json-empty-name", "rlaccel run: error: argument --json: the file name is empty", "--json",
         "", status=2),
]


def _snapshot(root):
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_refused_before_the_run_and_nothing_changes(case, check, tmp_path, monkeypatch):
    for name, content in case.files.items():
        (tmp_path / name).write_text(content)
    before = _snapshot(tmp_path)
    import rlaccel.tlm.platform as platform

    def never(*a, **k):
        raise AssertionError("simulated before the outputs were checked")

    monkeypatch.setattr(platform.Platform, "run", never)
    check(Case(case.id, case.argv, case.status, case.message))
    assert _snapshot(tmp_path) == before


def test_a_symlink_to_a_fifo_is_refused_and_kept(cli, tmp_path):
    os.mkfifo(tmp_path / "f")
    (tmp_path / "t.json").symlink_to("f")
    status, out, err = cli(["run", "m.toml", "-q", "--trace", "t.json"], FILES, limit=20)
    assert (status, err) == (1, E + "t.json: --trace is a FIFO, not a regular file\n")
    assert (tmp_path / "t.json").is_symlink() and stat.S_ISFIFO(os.stat(tmp_path / "f").st_mode)


def test_results_that_cannot_be_written_are_rescued(cli, tmp_path, monkeypatch):
    """The disk fails after the run: the report is saved beside the run and the message says
    where; the trace, which could be written, is."""
    real = files.atomic_write

    def fail_json(path, blob, error=files.RlaccelError):
        if str(path).endswith("r.json"):
            raise error(f"{path}: cannot write: No space left on device")
        return real(path, blob, error)

    monkeypatch.setattr(files, "atomic_write", fail_json)
    status, out, err = cli(["run", "m.toml", "-q", "--json", "r.json", "--trace", "t.json"],
                           FILES)
    rescued = [p for p in os.listdir(tmp_path) if p.startswith("r.rescued-")]
    assert status == 1 and len(rescued) == 1, (status, err)
    assert err == (E + f"r.json: cannot write: No space left on device; saved in "
                       f"{tmp_path / rescued[0]} instead\n")
    report = json.loads((tmp_path / rescued[0]).read_text())
    assert report["family"] == "adhdp" and report["instructions"] > 0
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert not (tmp_path / "r.json").exists()


def test_replacing_a_report_keeps_its_mode_and_link(cli, tmp_path):
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "real.json").chmod(0o640)
    (tmp_path / "r.json").symlink_to("real.json")
    status, out, err = cli(["run", "m.toml", "-q", "--json", "r.json"], FILES)
    assert status == 0, err
    assert (tmp_path / "r.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text())["family"] == "adhdp"
    assert stat.S_IMODE((tmp_path / "real.json").stat().st_mode) == 0o640

"""The end of a long run (``rlaccel report MACHINE -o DIR``, ``cosim --vcd``): when the files cannot be written
(the directory was removed during the run, the disk is full), they are saved together in a
new directory beside the run and the message says where; nothing is lost.

The FIXAR report runs for real except its measurements, replaced by a fixed point (which is
also where the test removes the output directory, as a user might during the run)."""

from __future__ import annotations

import errno
import json
import os
import shutil

import pytest

from rlaccel.machines.fixar import host, report
from rlaccel.util import files

FILES = ("fig10a_accelerator_ips.png", "fig10a_accelerator_ips.svg", "fig8_system_ips.png",
         "fig8_system_ips.svg", "fig9_breakdown.png", "fig9_breakdown.svg", "report.json",
         "report.md")


def _point(cycles: float) -> dict:
    return {"env": "Stub-v0", "cycles_per_step": cycles, "train_steps": 1, "sim_wall_s": 0.1,
            "ips": {"accelerator": 100.0, "system": 50.0, "system_paper_host": 60.0},
            "utilization": {"pe": 0.5, "cores": {"aap0": 0.5, "aap1": 0.4}},
            "power": {"train_w": 20.0, "ips_per_w": 5.0},
            "breakdown_s": {"environment": 1e-3, "host_other": 1e-3, "transfer": 1e-3,
                            "accelerator": 1e-3, "pcie_call_overhead": 1e-4}}


@pytest.fixture
def fixar(monkeypatch, tmp_path):
    """The FIXAR report with stub measurements; ``during(fn)`` sets what happens during the
    run (once, at the first point)."""
    hooks = []

    def measure(manifest, B, arch, steps, seed=1, meter=None):
        while hooks:
            hooks.pop()()
        return _point(1000.0 * B)

    monkeypatch.setattr(report, "measure", measure)
    monkeypatch.setattr(report, "_predicted", lambda dims, B, half, arch: {"ips": 90.0})
    monkeypatch.setattr(host, "make_env", lambda env_id: None)
    monkeypatch.setattr(host, "env_dims", lambda env: (17, 6))
    return hooks.append


def _rescue_dirs(tmp_path, name="r"):
    return sorted(p for p in tmp_path.iterdir() if p.name.startswith(f"{name}.rescued-"))


def test_the_report_is_written(cli, fixar, tmp_path):
    status, out, err = cli(["report", "fixar", "-o", "r", "--batches", "64"])
    assert (status, err) == (0, "")
    assert sorted(os.listdir(tmp_path / "r")) == sorted(FILES)
    assert not _rescue_dirs(tmp_path)


def test_a_directory_removed_during_the_run_is_rescued_beside_it(cli, fixar, tmp_path):
    fixar(lambda: shutil.rmtree(tmp_path / "sub"))
    status, out, err = cli(["report", "fixar", "-o", "sub/r", "--batches", "64"])
    rescued = _rescue_dirs(tmp_path)
    assert status == 1 and len(rescued) == 1, err
    assert sorted(os.listdir(rescued[0])) == sorted(FILES)
    assert json.loads((rescued[0] / "report.json").read_text())["points"]["32-bit"]["64"]
    assert err == (f"rlaccel report: error: sub/r/report.json: cannot write: directory "
                   f"sub/r does not exist; 8 file(s) of sub/r saved in "
                   f"{rescued[0]}/ instead: {', '.join(sorted(FILES, key=_order))}\n")
    assert not (tmp_path / "sub").exists()


def _order(name: str) -> int:
    """The order the FIXAR report writes its files in."""
    return ["report.json", "report.md", "fig10a_accelerator_ips.png",
            "fig10a_accelerator_ips.svg", "fig8_system_ips.png", "fig8_system_ips.svg",
            "fig9_breakdown.png", "fig9_breakdown.svg"].index(name)


def test_a_full_disk_loses_nothing(cli, fixar, tmp_path, monkeypatch):
    """The disk fills up while the report's files are synced: every file is saved beside the
    run instead (here the current directory, which still has room)."""
    real = os.fsync

    def fsync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").startswith(f"{tmp_path}/r/"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd)

    monkeypatch.setattr(files.os, "fsync", fsync)
    status, out, err = cli(["report", "fixar", "-o", "r", "--batches", "64"])
    rescued = _rescue_dirs(tmp_path)
    assert status == 1 and len(rescued) == 1, err
    assert sorted(os.listdir(rescued[0])) == sorted(FILES)
    assert err.startswith("rlaccel report: error: r/report.json: cannot write: No space left "
                          "on device; 8 file(s) of r saved in ")
    assert sorted(os.listdir(tmp_path / "r")) == []            # no partial file left there


def test_a_report_that_cannot_be_saved_anywhere_says_so(cli, fixar, tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    fixar(lambda: shutil.rmtree(tmp_path / "r"))
    monkeypatch.setattr(files.tempfile, "mkdtemp", full)
    monkeypatch.setattr(files.tempfile, "mkstemp", full)
    status, out, err = cli(["report", "fixar", "-o", "r", "--batches", "64"])
    assert status == 1 and "Traceback" not in err
    assert err == (f"rlaccel report: error: r/report.json: cannot write: directory "
                          f"r does not exist (and r/report.md, r/fig10a_accelerator_ips.png, "
                          f"r/fig10a_accelerator_ips.svg, r/fig8_system_ips.png, "
                          f"r/fig8_system_ips.svg, r/fig9_breakdown.png, r/fig9_breakdown.svg); "
                          f"could not save it anywhere else "
                          f"either (tried . (No space left on device), {files.tempfile.gettempdir()} (No space "
                          f"left on device))\n"), err


def test_a_waveform_whose_directory_is_removed_during_the_run_is_rescued(cli, tmp_path,
                                                                         monkeypatch):
    """``cosim --vcd``: MyHDL writes the waveform during the run; the directory is removed
    before it ends; the waveform, held open, is saved beside the run."""
    from rlaccel.rtl import cosim
    real = cosim.run

    def run(*args, **kwargs):
        r = real(*args, **kwargs)
        shutil.rmtree(tmp_path / "w")
        return r

    monkeypatch.setattr(cosim, "run", run)
    (tmp_path / "w").mkdir()
    status, out, err = cli(["cosim", "lane", "--n", "3", "--vcd", "w/lane.vcd"])
    rescued = [p for p in tmp_path.iterdir() if p.name.startswith("lane.rescued-")]
    assert status == 1 and len(rescued) == 1, err
    assert rescued[0].suffix == ".vcd" and "$enddefinitions" in rescued[0].read_text()
    assert out.startswith("lane (myhdl, seed 1): 3 transactions checked, 0 mismatches")
    assert err == (f"rlaccel cosim: error: w/lane.vcd: cannot write: directory w does not "
                   f"exist; saved in {rescued[0]} instead\n")


def test_a_sweep_database_removed_during_the_sweep_is_rescued(tmp_path, monkeypatch):
    """The connection goes on writing the removed file; at the end its contents are saved
    beside the run (before, the sweep said 'N of N points finished' and they were lost)."""
    from rlaccel.sweep.errors import SweepError
    from rlaccel.sweep.spec import load_spec
    from rlaccel.sweep.store import Store, open_existing
    from tests.sweep.conftest import TINY

    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.toml").write_text(TINY)
    (tmp_path / "d").mkdir()
    store = Store.open(tmp_path / "d" / "s.sqlite", load_spec(tmp_path / "spec.toml"))
    shutil.rmtree(tmp_path / "d")
    with pytest.raises(SweepError) as e:
        store.close()
    (rescued,) = [p for p in tmp_path.iterdir() if p.name.startswith("s.rescued-")]
    assert str(e.value) == (f"{tmp_path}/d/s.sqlite: the database was removed or replaced "
                            f"during the sweep; saved in {rescued} instead")
    with open_existing(rescued) as again:
        assert again.counts()["total"] == 6

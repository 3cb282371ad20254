"""rlaccel.util.lock: an exclusive lock that a second holder waits for or is refused."""

import subprocess
import sys

from rlaccel.util.lock import exclusive, lock_for


def test_a_held_lock_refuses_another_holder_and_is_released(tmp_path):
    p = tmp_path / "sub" / "run.lock"
    with exclusive(p) as first:
        assert first and p.exists()
        with exclusive(p, wait=False) as second:
            assert second is False
        # another process is refused too
        code = ("import sys; from rlaccel.util.lock import exclusive\n"
                f"with exclusive({str(p)!r}, wait=False) as got: sys.exit(0 if got else 3)")
        assert subprocess.run([sys.executable, "-c", code]).returncode == 3
    with exclusive(p, wait=False) as again:
        assert again


def test_lock_files_are_keyed_by_the_target(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert lock_for(a, "fig9") != lock_for(b, "fig9")
    assert lock_for(a, "fig9") == lock_for(tmp_path / "." / "a.json", "fig9")
    assert lock_for(a, "fig9").name.startswith("fig9-")

"""Fixtures shared by the machines' tests."""

import pytest

from rlaccel.programs import checkpoint as ckm


class _Stop(Exception):
    """Raised right after a checkpoint is written: the run stops as a killed one would."""


@pytest.fixture
def stopped_at_first_save(monkeypatch):
    """``stop(setup, path, every, identity)``: run a prepared run with checkpoints until the
    first one is written, then stop it; returns the checkpoint as read back."""
    def stop(setup, path, every, identity):
        save = ckm._Checkpoints.save

        def save_then_stop(self):
            if save(self):
                raise _Stop
            return False

        monkeypatch.setattr(ckm._Checkpoints, "save", save_then_stop)
        try:
            with pytest.raises(_Stop):
                ckm.run_checkpointed(setup, path, every, identity)
        finally:
            monkeypatch.undo()
        return ckm.read(path)
    return stop


@pytest.fixture
def resumed_and_whole():
    """``compare(make_setup, path, every, identity, saved_at)``: resume the run stopped at
    exchange ``saved_at`` from ``path`` and run the same setup uninterrupted; checks that the
    resumed run started there, went on, removed its file and ends as the whole run (every
    agent's memories, the report but its wall-clock fields); returns both setups."""
    import numpy as np

    from tests.test_golden_results import stable

    def compare(make_setup, path, every, identity, saved_at):
        resumed = make_setup()
        res_a = ckm.run_checkpointed(resumed, path, every, identity)
        whole = make_setup()
        res_b = whole.platform.run()                   # the uninterrupted run, as run() does
        assert resumed.checkpoint["resumed_at"] == saved_at and not path.exists()
        assert resumed.checkpoint["exchanges"] > saved_at      # the run went on after it
        for a, b in zip(resumed.platform.agents, whole.platform.agents, strict=True):
            assert all(np.array_equal(a.memories[k].data, m.data)
                       for k, m in b.memories.items())
        assert stable(resumed.report(res_a)) == stable(whole.report(res_b))
        return resumed, whole
    return compare

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

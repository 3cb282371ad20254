"""machines/learninggroup/bench/learning.py: a checkpointed machine or reference run
stopped part-way resumes in a later call and ends with the uninterrupted run's curve, its
partial records keeping every iteration, and leaves no checkpoint behind; a checkpoint of
another run is refused."""

import pytest

SMALL = ["network.hid=16", "environment_kwargs.max_steps=6"]


class Stop(Exception):
    pass


def test_a_stopped_run_resumes_with_its_whole_curve(learning, tmp_path):
    whole = learning.machine(4, 2, 6, 2, 3, SMALL)
    ckpt = tmp_path / "run.ckpt"

    def stop(_run):
        raise Stop
    with pytest.raises(Stop):
        learning.machine(4, 2, 6, 2, 3, SMALL, partial=stop, partial_every=4,
                         checkpoint=ckpt, checkpoint_every=5)
    assert ckpt.exists() and ckpt.with_suffix(".rows.jsonl").exists()
    partials = []
    resumed = learning.machine(4, 2, 6, 2, 3, SMALL, partial=partials.append,
                               partial_every=5, checkpoint=ckpt, checkpoint_every=5)
    assert resumed["curve"] == whole["curve"] and len(whole["curve"]) == 6
    assert resumed["success_all"] == whole["success_all"]
    # the partial record after the resume holds the iterations before it too
    assert [r["iteration"] for r in partials[0]["curve"]] == [1, 2, 3, 4, 5]
    cols = learning.CURVE_COLUMNS           # what a progress line carries
    assert partials[0]["curve"] == [{k: r[k] for k in cols} for r in whole["curve"][:5]]
    assert not ckpt.exists() and not ckpt.with_suffix(".rows.jsonl").exists()


def test_a_stopped_reference_run_resumes_bit_for_bit(learning, tmp_path, monkeypatch):
    import rlaccel.machines.learninggroup.config as config
    small = config.NetConfig(hid=16, groups=2)
    monkeypatch.setattr(config, "NetConfig", lambda hid, groups: small)
    whole = learning.reference(4, 2, 5, 2, 3, 1e-6)
    ckpt = tmp_path / "ref.ckpt"
    seen = []

    def stop(run):
        seen.append(run)
        raise Stop
    with pytest.raises(Stop):
        learning.reference(4, 2, 5, 2, 3, 1e-6, partial=stop, partial_every=3,
                           checkpoint=ckpt, checkpoint_every=2)
    assert ckpt.exists() and len(seen[0]["curve"]) == 3
    resumed = learning.reference(4, 2, 5, 2, 3, 1e-6, checkpoint=ckpt, checkpoint_every=2)
    assert resumed["curve"] == whole["curve"] and len(whole["curve"]) == 5
    assert not ckpt.exists() and not ckpt.with_suffix(".rows.jsonl").exists()
    # a checkpoint of another configuration is refused by name
    with pytest.raises(Stop):
        learning.reference(4, 2, 5, 2, 3, 1e-6, partial=stop, partial_every=3,
                           checkpoint=ckpt, checkpoint_every=2)
    from rlaccel.programs.checkpoint import CheckpointError
    with pytest.raises(CheckpointError, match="another run"):
        learning.reference(4, 2, 5, 2, 4, 1e-6, checkpoint=ckpt)

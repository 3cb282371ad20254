"""``rlaccel.sweep``: design-space sweeps over any machine's manifests.

A spec (:mod:`.spec`) names a manifest, the axes to vary and the metrics to keep; the driver
(:mod:`.driver`) runs its points on an executor (:mod:`.executors`: a local process pool or
Ray) and stores each in SQLite (:mod:`.store`) as it finishes; :mod:`.figure` averages a
metric over the seeds with confidence intervals and plots it. ``rlaccel sweep`` is the
command line (:mod:`.cli`).
"""

from rlaccel.sweep.driver import SweepSummary, run_sweep
from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.spec import Spec, load_spec

__all__ = ["run_sweep", "SweepSummary", "SweepError", "Spec", "load_spec"]

"""Metrics: dotted paths into a report with an optional reduction; a path the report does
not have names the keys it does have."""

import numpy as np
import pytest

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.metrics import Metric, MetricError

REPORT = {"cycles": np.int64(1200), "learning": {"steps_per_trial": [10, 30, 20],
                                                   "trials_to_success": None},
          "per_iteration": {"critic": {"cycles": 92.5}}, "ratio": float("nan"), "empty": []}


@pytest.mark.parametrize("text, value", [
    ("cycles", 1200), ("sum(learning.steps_per_trial)", 60),
    ("mean(learning.steps_per_trial)", 20.0), ("max(learning.steps_per_trial)", 30),
    ("min(learning.steps_per_trial)", 10), ("len(learning.steps_per_trial)", 3),
    ("first(learning.steps_per_trial)", 10), ("last(learning.steps_per_trial)", 20),
    ("learning.steps_per_trial.1", 30), ("per_iteration.critic.cycles", 92.5),
    ("learning.trials_to_success", None), ("learning.steps_per_trial", [10, 30, 20]),
    ("ratio", None), ("sum(empty)", 0), ("mean(empty)", None), ("len(empty)", 0),
    (" sum( learning.steps_per_trial ) ", 60),
])
def test_extract(text, value):
    v = Metric.parse("m", text).extract(REPORT)
    assert v == value and type(v) is type(value)


@pytest.mark.parametrize("text, message", [
    ("cycle", r"metric 'm' = 'cycle': the report has no key 'cycle' \(did you mean 'cycles'\?\); "
              r"its keys: cycles, learning, per_iteration, ratio, empty"),
    ("learning.steps", r"learning has no key 'steps'"),
    ("learning.steps_per_trial.7", r"learning.steps_per_trial has 3 items, no item 7"),
    ("cycles.x", r"cycles is the value 1200, which has no 'x'"),
    ("sum(per_iteration)", r"per_iteration is a table; sum\(\) needs a list of numbers"),
])
def test_missing_paths_name_what_the_report_has(text, message):
    with pytest.raises(MetricError, match=message):
        Metric.parse("m", text).extract(REPORT)


@pytest.mark.parametrize("text", ["", "a..b", "sum()", "a b", "f(g(x))", 3])
def test_bad_expressions(text):
    with pytest.raises(SweepError, match="metric 'm'"):
        Metric.parse("m", text)

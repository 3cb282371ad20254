"""DARL's plug-in: the common summary block's figures (headline) come from the run's report."""

from rlaccel.machines.darl.plugin import PLUGIN


def _report(ips):
    r = {"utilization": {"issue_busy": 0.28},
         "unit_utilisation_kernel": {"regression": 0.30, "encoder": 0.31},
         "learning": {"env_steps": 311}}
    if ips is not None:
        r["ips"] = {"quiet_host_parallel_envs": ips, "quiet_host": ips / 2}
    return r


def test_headline_names_eq23_ips_under_the_one_host_reading():
    h = PLUGIN.headline(_report(31557.0))
    assert h.throughput.name == "IPS (eq. 23)" and h.throughput.value == 31557.0
    assert h.utilisation == {"regression arrays (agent 0's kernel time)": 0.30,
                             "instruction issue": 0.28}
    assert h.env_steps == 311


def test_headline_without_a_training_iteration_says_why():
    h = PLUGIN.headline(_report(None))
    assert h.throughput is None and "eq. 23" in h.no_throughput

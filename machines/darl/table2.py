"""Table 2's throughput the way the DARL paper reports it (section 5, eq. 23-25; section 6.5):
IPS of each task from a simulated run, with one host reading, and the mean of CartPole and
LunarLander per agent count.

The host reading (:data:`HOST`), the one every DARL figure of IPS uses: eq. 24 as printed
charges ``T_env`` once per interaction round (``sum_i T_env T_i``, ``T_i`` the steps of one
agent), i.e. the agents' environments stepped at once; ``T_env`` is a quiet host's
gymnasium step (:data:`~.plugin.T_ENV_QUIET`, the project's reference speeds); the
transfers are the simulated host link's, the agents' exchanges overlapping (the busiest
agent's); ``T_other`` is 0. The kernel's iterations are the simulated ones (marks 1 and 2).

The training frequency is the paper's ratio ``T'_i / T''_i`` of inference iterations to
training batches (section 5). The paper gives no value: the host trains once every
``train_every`` environment steps (QHD's one batch a step by default) and infers only on
greedy steps, so the ratio is measured, ``sum T' / sum T''``, and reported with the IPS.
:func:`needed_training_frequency` inverts eq. 23-25 for it: the ratio at which a figure of
the paper would follow from the run's other measured terms (an explanation of a residual,
never an input).
"""

from __future__ import annotations

from rlaccel.machines.darl.tlm import ips_terms, iteration_seconds

__all__ = ["HOST", "PAPER", "eq23", "needed_training_frequency", "table2"]

HOST = ("eq. 24 as printed: one T_env per interaction round (the agents' environments "
        "stepped at once), T_env a quiet host's gymnasium step (6.4 us CartPole-v1, 36.3 us "
        "LunarLander-v3); transfers from the simulated host link, the agents' exchanges "
        "overlapping; T_other 0")

#: the DARL paper: Table 2's mean of the two tasks per agent count, and Fig. 11a's eight-agent
#: IPS of each task
PAPER = {"1": {"ips_mean": 36597.1}, "8": {"ips_mean": 187972.9, "cartpole": 184158.5,
                                           "lunarlander": 191787.4}}


def eq23(report: dict, *, batch: int, clock_mhz: float) -> dict:
    """Eq. 23-25 of one run's report (``rlaccel run machines/darl/<task>.toml``, its batch M
    and clock) under :data:`HOST`: the IPS, the training frequency, each term per step of
    an agent, and the bound of training alone (``N / (M F)``: no environment, inference or
    transfer time)."""
    from rlaccel.machines.darl.plugin import T_ENV_QUIET
    lr = report["learning"]
    n = lr["agents"]
    f_train = iteration_seconds(report["latency_cycles"], clock_mhz)
    f_inf = iteration_seconds(report["latency_inference_cycles"] or report["latency_cycles"],
                              clock_mhz)
    T = float(lr["env_steps"]) / n            # one agent's steps: eq. 24's sum of T_i
    greedy, batches = sum(lr["greedy"]) / n, sum(lr["batches"]) / n
    t_env, t_comm = T_ENV_QUIET[lr["env"]], report["ips"]["t_comm_s"]
    terms = ips_terms(n, [T], [greedy], [batches], batch=batch, F=f_inf, f_train=f_train,
                      T_env=t_env, T_comm1=t_comm)
    per = 1e6 / T                              # microseconds per step of an agent
    us = {"train": terms["t_train"] * per, "infer": greedy * f_inf * per,
          "env": t_env * 1e6, "transfers": t_comm * per}
    return {"ips": terms["ips"], "agents": n, "env": lr["env"], "batch": batch,
            "env_steps": lr["env_steps"], "greedy_share": greedy / T,
            "training_frequency": greedy / batches if batches else None,
            "us_per_step": us, "bound_train_only": n / (batch * f_train),
            "us_per_training_iteration": 1e6 * f_train}


def needed_training_frequency(row: dict, ips: float) -> float | None:
    """The training frequency ``T' / T''`` at which eq. 23-25, with every other term of
    this :func:`eq23` row as measured, give ``ips``; None if the row's inference,
    environment and transfer time alone exceed ``N / ips`` (no training frequency does)."""
    us = row["us_per_step"]
    rest = us["infer"] + us["env"] + us["transfers"]
    room = 1e6 * row["agents"] / ips - rest
    if room <= 0:
        return None
    per_batch = row["batch"] * row["us_per_training_iteration"]
    return row["greedy_share"] * per_batch / room


def table2(rows: dict) -> dict:
    """Table 2 from :func:`eq23` rows keyed ``"<task>/<agents>"``: per agent count each
    task's IPS, their mean (as Table 2 reports it) and the paper's figures beside them."""
    out = {"host": HOST}
    for agents in ("1", "8"):
        cp, ll = rows.get(f"cartpole/{agents}"), rows.get(f"lunarlander/{agents}")
        if cp is None or ll is None:
            continue
        mean = (cp["ips"] + ll["ips"]) / 2
        paper = PAPER[agents]
        row = {"ips_mean": mean, "cartpole": cp["ips"], "lunarlander": ll["ips"],
               "paper_ips_mean": paper["ips_mean"],
               "error": (mean - paper["ips_mean"]) / paper["ips_mean"]}
        for task, r in (("cartpole", cp), ("lunarlander", ll)):
            row[f"{task}_training_frequency"] = r.get("training_frequency")
            if task in paper:
                row[f"paper_{task}"] = paper[task]
                if "greedy_share" in r:
                    row[f"{task}_training_frequency_for_paper"] = \
                        needed_training_frequency(r, paper[task])
        out[agents] = row
    return out

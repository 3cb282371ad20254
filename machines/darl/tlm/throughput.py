"""Inferences per second of the CPU-FPGA system (the DARL paper, section 5, eq. 23-25).

Over ``E`` episodes (training stages), in episode ``i`` every one of the ``N_agent`` agents
interacts ``T_i`` times with its environment; the kernel runs ``T'_i`` inference iterations
(the greedy steps of epsilon-greedy: a random action needs no kernel) and ``T''_i`` training
batches of ``M`` samples, each iteration ``F`` seconds::

    IPS     = sum_i N_agent T_i / (T_inf + T_train + T_other)                    (23)
    T_inf   = T_comm1 + sum_i (T'_i F + T_env T_i)                               (24)
    T_train = T_comm2 + sum_i T''_i M F                                          (25)

``T_env`` is the host's time per interaction step (all agents' environments), ``T_comm1``,
``T_comm2`` the host-FPGA transfers of inference and training, ``T_other`` the rest (XRT
start-up, buffer allocation). With ``N_agent`` agents the kernel's iterations run on every
agent at once, so ``F`` is one iteration of the n-agent kernel (Table 1's L at the clock).
``f_train`` (optional) is a training iteration's time where it differs from an inference
iteration's ``F``.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import ArchError

__all__ = ["iteration_seconds", "ips", "ips_terms"]


def iteration_seconds(cycles: int, clock_mhz: float) -> float:
    """``F``: seconds of an iteration of ``cycles`` at ``clock_mhz``."""
    if not clock_mhz > 0:
        raise ArchError(f"a clock of {clock_mhz!r} MHz is not positive")
    return cycles / (clock_mhz * 1e6)


def _counts(name, x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64).ravel()
    if a.size == 0 or np.any(a < 0) or not np.all(np.isfinite(a)):
        raise ArchError(f"IPS: {name} must list one or more non-negative counts per episode")
    return a


def ips_terms(agents: int, T, T_inf, T_train, *, batch: int, F: float, T_env: float,
              T_comm1: float = 0.0, T_comm2: float = 0.0, T_other: float = 0.0,
              f_train: float | None = None) -> dict:
    """The terms of eq. 23-25: ``samples``, ``t_inf``, ``t_train``, ``t_other``, ``ips``."""
    if isinstance(agents, bool) or not isinstance(agents, (int, np.integer)) or agents < 1:
        raise ArchError(f"IPS: agents must be a positive integer, not {agents!r}")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ArchError(f"IPS: the batch M must be a positive integer, not {batch!r}")
    T, Ti, Tt = _counts("T", T), _counts("T'", T_inf), _counts("T''", T_train)
    if not T.size == Ti.size == Tt.size:
        raise ArchError(f"IPS: T, T', T'' cover {T.size}, {Ti.size}, {Tt.size} episodes")
    for name, v in (("F", F), ("T_env", T_env), ("T_comm1", T_comm1), ("T_comm2", T_comm2),
                    ("T_other", T_other)):
        if not v >= 0:
            raise ArchError(f"IPS: {name} must be a non-negative time, not {v!r}")
    ft = F if f_train is None else f_train
    samples = agents * float(T.sum())
    t_inf = T_comm1 + float(np.sum(Ti * F + T_env * T))
    t_train = T_comm2 + float(np.sum(Tt * batch * ft))
    total = t_inf + t_train + T_other
    if not total > 0:
        raise ArchError("IPS: the run takes no time")
    return {"samples": samples, "t_inf": t_inf, "t_train": t_train, "t_other": T_other,
            "ips": samples / total}


def ips(agents: int, T, T_inf, T_train, **kw) -> float:
    """Eq. 23: inferences per second (keywords as :func:`ips_terms`)."""
    return ips_terms(agents, T, T_inf, T_train, **kw)["ips"]

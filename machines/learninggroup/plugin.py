"""The LearningGroup machine's run plug-in: IC3Net with fully learnable weight grouping
trained on predator-prey, through the simulator.

A manifest (``machines/learninggroup/programs/predator_prey.toml``) names the architecture, the
grouped program (``program``) and the dense one (``program_dense``, run when
``network.groups`` is 1), the environment and its options, the network, the learning
constants and the budget (``iterations``, or ``steps``: stop at the first episode end with
that many environment steps, ``rlaccel run ... --steps N``). The plug-in passes the sizes
to the program as defines, checks the binary's buffers against the environment, and reports
the learning curve, the VPU utilisation (dense and sparse), the GFLOPS as the paper counts
them, the encoder's work, the cores' workloads (Table I) and the latency per iteration.
"""

from __future__ import annotations

import math
from pathlib import Path

from rlaccel.programs.manifest import COUNT_MAX, Knob, ManifestError
from rlaccel.programs.plugin import PackagePlugin, Run
from rlaccel.util.memory import reserve

__all__ = ["PLUGIN", "LearningGroupPlugin", "defines", "learning_config", "obs_dim"]

#: IC3Net's grid sizes (benchmarks.md 4.1): the predator-prey options we accept
_ENV_KEYS = ("nagents", "dim", "vision", "max_steps", "mode")


def obs_dim(env_kwargs: dict) -> int:
    """Observation words per agent: ((2v+1)^2) (dim^2 + 4) (IC3Net's multi-hot window)."""
    v, d = env_kwargs.get("vision", 0), env_kwargs.get("dim", 5)
    return (2 * v + 1) ** 2 * (d * d + 4)


def learning_config(m: dict):
    from rlaccel.machines.learninggroup.config import LearningConfig
    lr = m["learning"]
    return LearningConfig(env_id=m["environment"], env_kwargs=dict(m["environment_kwargs"]),
                          batch_episodes=lr["batch_episodes"], iterations=m["iterations"],
                          lr=lr["lr"], alpha=lr["alpha"], eps=lr["eps"], gamma=lr["gamma"],
                          value_coeff=lr["value_coeff"], detach_gap=lr["detach_gap"],
                          seed=m["seed"])


def defines(m: dict) -> dict:
    """The program's defines: sizes, initialisation bounds, hyper-parameters."""
    env, net, lr = m["environment_kwargs"], m["network"], m["learning"]
    nobs, H = obs_dim(env), net["hid"]
    return {"NA": env["nagents"], "NOBS": nobs, "H": H, "G": net["groups"],
            "TMAX": env["max_steps"], "SEED": m["seed"], "BENC": 1.0 / math.sqrt(nobs),
            "BH": 1.0 / math.sqrt(H), "BGRP": math.sqrt(3.0), "LR": lr["lr"],
            "ALPHA": lr["alpha"], "EPS": lr["eps"], "VCOEF2": 2.0 * lr["value_coeff"]}


class LearningGroupPlugin(PackagePlugin):
    machine = "learninggroup"
    description = ("IC3Net + FLGW on predator-prey on the LearningGroup accelerator (the LearningGroup paper): "
                   "OSEL, row-based load balancing, 3 x 264 FP16 VPUs")
    run_options = {"steps": "steps"}

    @property
    def schema(self) -> dict:
        return {
            "program_dense": "", "environment": "rlaccel/PredatorPrey-v2",
            "environment_kwargs": {"__free__": True},
            "iterations": Knob(2000, 1, COUNT_MAX), "steps": Knob(0, 0, COUNT_MAX),
            "network": {"hid": Knob(128, 1, 1 << 16), "groups": Knob(1, 1, 1 << 16)},
            "learning": {"batch_episodes": Knob(16, 1, 4096, why="episodes per weight "
                                                "update; the paper's are 1 to 32"),
                         "lr": Knob(1e-3, 0.0), "alpha": Knob(0.97, 0.0, 1.0),
                         "eps": Knob(1e-6, 0.0), "gamma": Knob(1.0, 0.0, 1.0),
                         "value_coeff": Knob(0.01, 0.0),
                         "detach_gap": Knob(10, 1, 1 << 20), "grad_scale": "sum"},
        }

    def validate(self, m: dict) -> None:
        where, env = m["__path__"], m["environment_kwargs"]
        bad = sorted(set(env) - set(_ENV_KEYS))
        if bad:
            raise ManifestError(f"{where}: unknown environment_kwargs {', '.join(bad)}; known: "
                                f"{', '.join(_ENV_KEYS)}")
        env.setdefault("nagents", 4)
        env.setdefault("dim", 5)
        env.setdefault("vision", 0)
        env.setdefault("max_steps", 20)
        for key in ("nagents", "dim", "max_steps"):
            if not isinstance(env[key], int) or isinstance(env[key], bool) or env[key] < 1:
                raise ManifestError(f"{where}: 'environment_kwargs.{key}' must be an integer "
                                    f">= 1, not {env[key]!r}")
        for key, hi in (("dim", 1000), ("max_steps", 1_000_000)):
            if env[key] > hi:
                raise ManifestError(f"{where}: 'environment_kwargs.{key}' must be at most "
                                    f"{hi:,}, not {env[key]:,}")
        v = env["vision"]
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= env["dim"]:
            raise ManifestError(f"{where}: 'environment_kwargs.vision' must be an integer from "
                                f"0 to dim ({env['dim']}), not {v!r}")
        if not 2 <= env["nagents"] <= 16:
            raise ManifestError(f"{where}: 'environment_kwargs.nagents' must be 2..16 (a batch "
                                f"of one instruction), not {env['nagents']}")
        net, lr = m["network"], m["learning"]      # ranges: the schema's Knobs
        if lr["grad_scale"] not in ("sum", "mean"):
            raise ManifestError(f"{where}: 'learning.grad_scale' must be \"sum\" or \"mean\", "
                                f"not {lr['grad_scale']!r}")
        H = net["hid"]
        # the LSTM's two 4H x H matrices and the other layers, with RMSprop's state, the
        # gradients and the machine's copy (float32)
        reserve(4 * 4 * (8 * H * H + 4 * H * obs_dim(env)), f"{where}: 'network.hid' = {H}",
                "the network and its optimiser state")
        # a batch's episodes, kept until the update: every agent's activations per step
        reserve(4 * 16 * H * env["nagents"] * env["max_steps"] * lr["batch_episodes"],
                f"{where}: 'learning.batch_episodes' = {lr['batch_episodes']}",
                f"a batch of {lr['batch_episodes']:,} episodes of {env['max_steps']:,} steps")

    def program_path(self, m: dict) -> Path:
        key = "program_dense" if m["network"]["groups"] == 1 else "program"
        return Path(m["__path__"]).parent / m[key]

    def prepare(self, m: dict, arch) -> Run:
        G = m["network"]["groups"]
        if G > arch.knobs.max_groups:
            raise ManifestError(f"{m['__path__']}: network.groups = {G} is beyond the "
                                f"hardware's {arch.knobs.max_groups} groups (max_groups of "
                                f"'{arch.name}')")
        return Run(self.program_path(m), defines(m), state={"m": m})

    def bind(self, m: dict, run: Run, binary, arch) -> None:
        from rlaccel.isa.dtypes import get_dtype

        from rlaccel.machines.learninggroup.host import HostPlan, LgHost
        plan = HostPlan(iterations=m["iterations"], steps=m["steps"],
                        grad_scale=m["learning"]["grad_scale"])
        run.hosts = LgHost(learning_config(m), plan, binary, get_dtype(arch.knobs.dtype))
        run.reported = 0

    def progress(self, run: Run) -> list[str]:
        host, lines = run.hosts, []
        while run.reported < len(host.curve):
            r = host.curve[run.reported]
            lines.append(f"iteration {r['iteration']:5d}: {r['episodes']} episodes, "
                         f"{r['steps']} steps, success {r['success_rate']:.0%}, caught "
                         f"{r['caught_rate']:.0%}")
            run.reported += 1
        return lines

    def results(self, m: dict, run: Run, res, platform) -> dict:
        from rlaccel.machines.learninggroup.results import family_results
        return family_results(m, run.hosts, res, platform)

    def headline(self, r: dict):
        """The summary's common block: the VPUs' utilisation by their multiply-accumulates
        (the matrix products, section III-D's measure) and by all their work, the paper's
        throughput measure (GFLOPS of the accelerator, dense-equivalent: the dense layer's
        operations over the sparse run's time, section IV-E), and the environment steps."""
        from rlaccel.programs.summary import Headline, Throughput
        u, th = r["utilization"], r["throughput"]
        return Headline(utilisation={"VPU matrix MACs": u["vpu_matrix"], "VPU all work":
                                     u["vpu"]},
                        throughput=Throughput("accelerator", th["gflops_effective"],
                                              "GFLOPS", "dense-equivalent"),
                        env_steps=int(r["learning"]["steps"]))


PLUGIN = LearningGroupPlugin()

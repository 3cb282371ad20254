"""The MADDPG program family (seed 003): manifests, the design-space exploration that sizes
the compute units, one learner program per agent, the host, results and summary.

A manifest (``machines/maddpg/*.toml``) names the architecture (``maddpg``: two learners,
``maddpg-pp``: four), the learner program, the MPE environment, the episode budget (and an
optional step budget, ``--steps``), and the hyper-parameters of the reference implementation
(``[learning]``, :class:`~rlaccel.machines.maddpg.config.MaddpgConfig`). Preparing a run
explores the design space for the environment's networks on the architecture's device
(seed 003, section IV; ``[dse]`` may change the search or force a base factor), and
assembles ``learner.s`` once per agent with that agent's widths and its compute units'
unroll factors.
"""

from __future__ import annotations

from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.plugin import PackagePlugin, Run

__all__ = ["PLUGIN", "MaddpgPlugin", "config", "learners", "design", "agent_defines"]

#: learning keys of the manifest -> MaddpgConfig's
_LEARNING = {"batch": 1024, "lr": 0.01, "gamma": 0.95, "tau": 0.01, "buffer": 1_000_000,
             "update_every": 100, "learning_starts": 0, "grad_clip": 0.5, "actor_reg": 0.001,
             "hidden": [64, 64], "max_episode_len": 25, "shared_reward": True,
             "target_init": "independent", "adam_beta1": 0.9, "adam_beta2": 0.999,
             "adam_eps": 1e-8}


def config(m: dict):
    """The run's MaddpgConfig (the machine: parallel schedule, one shared batch, Adam)."""
    from rlaccel.machines.maddpg.config import MaddpgConfig
    lr = m["learning"]
    kw = {k: lr[k] for k in _LEARNING if k != "learning_starts"}
    kw["hidden"] = tuple(lr["hidden"])
    return MaddpgConfig(env=m["environment"], policies=dict(m["policies"]),
                        episodes=m["episodes"], seed=m["seed"],
                        learning_starts=lr["learning_starts"] or None, schedule="parallel",
                        shared_batch=True, optimizer="adam", **kw)


def learners(task, hidden) -> list:
    """The DSE's learners: every agent's policy and critic widths."""
    from rlaccel.machines.maddpg.tlm.dse import Learner

    from rlaccel.machines.maddpg.host import layout
    out = []
    for s in task.specs:
        q_in = layout(s, task.specs)["QIN"]
        out.append(Learner.from_sizes(s.name, (s.obs_dim, *hidden, s.act_dim),
                                      (q_in, *hidden, 1)))
    return out


def design(m: dict, arch, task):
    """The design-space exploration of a manifest on its architecture's device (the search
    of ``[dse] search``, else the device's; ``[dse] f`` > 0 forces the base factor)."""
    from rlaccel.machines.maddpg.tlm.device import device_of
    from rlaccel.machines.maddpg.tlm.dse import explore, unroll_factors
    dev = device_of(arch)
    lrs = learners(task, tuple(m["learning"]["hidden"]))
    res = explore(lrs, dev, bram_per_bank=dev.bram_per_bank,
                  search=m["dse"]["search"] or dev.search)
    if m["dse"]["f"] > 0:                 # a smaller (or larger) base factor, as asked
        f = m["dse"]["f"]
        res.f = f
        res.search = "forced"
        for lr in lrs:
            res.factors[lr.name] = {p: unroll_factors(list(getattr(lr, p)), f, res.base_work)
                                    for p in ("value", "policy")}
        from rlaccel.machines.maddpg.tlm.dse import slr_use
        use = slr_use(lrs, res.placement, lambda st: unroll_factors(st, f, res.base_work),
                      len(dev.slrs), dev.bram_per_bank)
        for s, (d, b) in zip(res.slr, use):
            s["dsp_used"], s["bram_used"] = d, b
    return res


def agent_defines(m: dict, task, res) -> list[dict]:
    """Every learner's widths and unroll factors (learner.s's defines)."""
    from rlaccel.machines.maddpg.host import layout
    out = []
    for s in task.specs:
        d = layout(s, task.specs)
        F = res.factors[s.name]["value"] + res.factors[s.name]["policy"]
        d.update({f"F{u}": f for u, f in enumerate(F)})
        out.append(d)
    return out


class MaddpgPlugin(PackagePlugin):
    machine = "maddpg"
    description = ("MADDPG (seed 003): one learner per agent, two training pipelines of compute "
                   "units, a ring; MPE tasks")
    run_options = {"steps": "steps"}

    @property
    def schema(self) -> dict:
        return {"environment": "", "episodes": 25000, "steps": 0, "window": 100,
                "policies": {"__free__": True}, "learning": dict(_LEARNING),
                "dse": {"search": "", "f": 0}}

    def validate(self, m: dict) -> None:
        where, lr = m["__path__"], m["learning"]
        for key in ("episodes", "window"):
            if m[key] < 1:
                raise ManifestError(f"{where}: '{key}' must be at least 1, not {m[key]}")
        if m["steps"] < 0:
            raise ManifestError(f"{where}: 'steps' must be 0 (no limit) or more, not "
                                f"{m['steps']}")
        if len(lr["hidden"]) != 2:
            raise ManifestError(f"{where}: 'learning.hidden' = {lr['hidden']}: the learner "
                                f"program (learner.s) has two hidden layers")
        if lr["grad_clip"] <= 0:
            raise ManifestError(f"{where}: 'learning.grad_clip' must be positive (the learner "
                                f"clips every gradient tensor), not {lr['grad_clip']}")
        if lr["actor_reg"] < 0:
            raise ManifestError(f"{where}: 'learning.actor_reg' must be 0 (none) or more (the "
                                f"actor's output regularisation), not {lr['actor_reg']}")
        if lr["learning_starts"] < 0:
            raise ManifestError(f"{where}: 'learning.learning_starts' must be 0 (batch x "
                                f"episode length) or more, not {lr['learning_starts']}")
        if m["dse"]["search"] not in ("", "base", "latency"):
            raise ManifestError(f"{where}: 'dse.search' must be 'base' or 'latency', not "
                                f"{m['dse']['search']!r}")
        if m["dse"]["f"] < 0:
            raise ManifestError(f"{where}: 'dse.f' must be 0 (the DSE's) or a base factor, "
                                f"not {m['dse']['f']}")
        config(m)                          # MaddpgConfig's own checks

    def prepare(self, m: dict, arch) -> Run:
        from rlaccel.machines.maddpg.host import MaddpgHost
        cfg = config(m)
        host = MaddpgHost(cfg, m["episodes"], m["steps"], m["window"])
        task = host.training.task
        if arch.knobs.agents != task.n:
            raise ManifestError(f"{m['__path__']}: {cfg.env} has {task.n} agents "
                                f"({', '.join(task.agents)}) but architecture '{arch.name}' "
                                f"has {arch.knobs.agents} learners (machine.agents)")
        if cfg.batch > arch.knobs.max_batch:
            raise ManifestError(f"{m['__path__']}: 'learning.batch' = {cfg.batch} exceeds "
                                f"the {arch.knobs.max_batch} samples a stream of "
                                f"'{arch.name}' takes (machine.max_batch)")
        res = design(m, arch, task)
        h1, h2 = m["learning"]["hidden"]
        common = {"B": cfg.batch, "H1": h1, "H2": h2, "GAMMA": cfg.gamma, "TAU": cfg.tau,
                  "CLIP": cfg.grad_clip, "ACTOR_REG": cfg.actor_reg, "BETA1": cfg.adam_beta1,
                  "BETA2": cfg.adam_beta2, "EPS": cfg.adam_eps}
        run = Run(self.program_path(m), common, hosts=host.hosts, state=host,
                  agent_defines=agent_defines(m, task, res))
        run.design = res
        return run

    def bind(self, m: dict, run: Run, binary, arch) -> None:
        for h, b in zip(run.hosts, binary):
            h.bind(b)

    def progress(self, run: Run) -> list[str]:
        from rlaccel.machines.maddpg.results import progress_lines
        return progress_lines(run.state)

    # ---- rlaccel report maddpg ----
    has_report = True


PLUGIN = MaddpgPlugin()

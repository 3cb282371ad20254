"""The MADDPG machine's run plug-in: manifests, the design-space exploration that sizes
the compute units, one learner program per agent, the host, results and summary.

A manifest (``machines/maddpg/*.toml``) names the architecture (``maddpg``: two learners,
``maddpg-pp``: four), the learner program, the MPE environment, the episode budget (and an
optional step budget, ``--steps``), the environment's own arguments (``[task]``, e.g.
Predator-Prey's ``num_adversaries``), and the hyper-parameters of the reference
implementation (``[learning]``, :class:`~rlaccel.machines.maddpg.config.MaddpgConfig`).
Preparing a run explores the design space for the environment's networks on the
architecture's device (the MADDPG paper, section IV; ``[dse]`` may change the search or force
a base factor), and assembles ``learner.s`` once per agent with that agent's widths and its
compute units' unroll factors.
"""

from __future__ import annotations

from rlaccel.programs.manifest import COUNT_MAX, Knob, ManifestError
from rlaccel.programs.plugin import PackagePlugin, Run
from rlaccel.util.memory import reserve

__all__ = ["PLUGIN", "MaddpgPlugin", "config", "learners", "design", "agent_defines",
           "check_arch", "MAX_WIDTH", "BUDGETS"]

#: the widest hidden layer a manifest may ask for (the memory the networks take is estimated
#: too, before anything is allocated)
MAX_WIDTH = 1 << 16

#: learning keys of the manifest -> MaddpgConfig's, with their ranges
_LEARNING = {"batch": Knob(1024, 1, 1 << 20), "lr": Knob(0.01, 0.0),
             "gamma": Knob(0.95, 0.0, 1.0), "tau": Knob(0.01, 0.0, 1.0),
             "buffer": Knob(1_000_000, 1, 1 << 32), "update_every": Knob(100, 1, COUNT_MAX),
             "learning_starts": Knob(0, 0, COUNT_MAX), "grad_clip": Knob(0.5, 0.0),
             "actor_reg": Knob(0.001, 0.0, why="0: none; the actor's output "
                                                   "regularisation"),
             "hidden": Knob([64, 64], 1, MAX_WIDTH, length=2,
                            why="the learner program, learner.s, has two hidden layers"),
             "max_episode_len": Knob(25, 1, 1 << 20), "shared_reward": True,
             "target_init": "independent", "adam_beta1": Knob(0.9, 0.0, 1.0),
             "adam_beta2": Knob(0.999, 0.0, 1.0), "adam_eps": Knob(1e-8, 0.0)}


def config(m: dict):
    """The run's MaddpgConfig (the machine: parallel schedule, one shared batch, Adam)."""
    from rlaccel.machines.maddpg.config import MaddpgConfig
    lr = m["learning"]
    kw = {k: lr[k] for k in _LEARNING if k != "learning_starts"}
    kw["hidden"] = tuple(lr["hidden"])
    return MaddpgConfig(env=m["environment"], policies=dict(m["policies"]),
                        env_kwargs=dict(m.get("task", {})), episodes=m["episodes"],
                        seed=m["seed"],
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


#: what the design search may fill of each SLR by the cost model (``[dse] budget``)
BUDGETS = ("guideline", "capacity")


def design(m: dict, arch, task):
    """The design-space exploration of a manifest on its architecture's device (the search
    of ``[dse] search``, else the device's; ``[dse] f`` > 0 forces the base factor; ``[dse]
    budget``: the cost model's resources within UG949's guideline, or each SLR's capacity)."""
    from dataclasses import replace

    from rlaccel.machines.maddpg.tlm.device import device_of
    from rlaccel.machines.maddpg.tlm.dse import explore, unroll_factors
    dev = device_of(arch)
    if m["dse"].get("budget", "guideline") == "capacity" and dev.fabric is not None:
        dev = replace(dev, fabric=replace(dev.fabric, budget=dev.fabric.capacity))
    lrs = learners(task, tuple(m["learning"]["hidden"]))
    res = explore(lrs, dev, bram_per_bank=dev.bram_per_bank,
                  search=m["dse"]["search"] or dev.search)
    if m["dse"]["f"] > 0:                 # a smaller (or larger) base factor, as asked
        f, own = m["dse"]["f"], res.f
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
        over = [f"{s['name']} needs {s['dsp_used']:,} DSPs and {_n(s['bram_used'])} BRAMs "
                f"but has {s['dsp_budget']:,} and {_n(s['bram_budget'])}" for s in res.slr
                if s["dsp_used"] and not (s["dsp_used"] < s["dsp_budget"]
                                          and s["bram_used"] < s["bram_budget"])]
        res.over_guideline = [f"{s['name']} needs {x[f'{k}_used' if k in ('lut', 'ff') else f'{k}_model']:,.1f} "
                              f"{k.upper()}s but has {x[f'{k}_budget' if k in ('lut', 'ff') else f'{k}_model_budget']:,.0f}"
                              for s, x in zip(res.slr, res.fabric())
                              for k in ("lut", "ff", "dsp", "bram")
                              if s["agents"] and x[f"{k}_used" if k in ("lut", "ff") else f"{k}_model"]
                              > x[f"{k}_budget" if k in ("lut", "ff") else f"{k}_model_budget"]]
        if over:
            raise ManifestError(f"{m['__path__']}: 'dse.f' = {f}: the design does not fit "
                                f"{dev.name} ({'; '.join(over)}); the DSE's own base factor "
                                f"{own} fits, and so does any smaller one")
    return res


def _n(v: float) -> str:
    return f"{v:,.1f}".removesuffix(".0")


def check_arch(m: dict, arch) -> None:
    """What a manifest asks of its architecture, for ``run`` and ``dse`` alike: a batch the
    learners' streams take."""
    batch = m["learning"]["batch"]
    if batch > arch.knobs.max_batch:
        raise ManifestError(f"{m['__path__']}: 'learning.batch' = {batch} exceeds the "
                            f"{arch.knobs.max_batch} samples a stream of '{arch.name}' takes "
                            f"(machine.max_batch)")


def check_task(m: dict, arch, task) -> None:
    """One learner per agent of the task."""
    if arch.knobs.agents != task.n:
        raise ManifestError(f"{m['__path__']}: {m['environment']} has {task.n} agents "
                            f"({', '.join(task.agents)}) but architecture '{arch.name}' "
                            f"has {arch.knobs.agents} learners (machine.agents)")


def memory(m: dict) -> None:
    """Refuse networks larger than this process can hold, before any is built: at least the
    two hidden layers' weights of every agent's policy and critic, with their targets, Adam's
    two moments, gradients and the host's copy (float32)."""
    h1, h2 = m["learning"]["hidden"]
    reserve(4 * 6 * 2 * 2 * (h1 * h2 + h1 + h2), f"{m['__path__']}: 'learning.hidden' = "
            f"{m['learning']['hidden']}", "the networks, their targets and optimiser state")


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
    description = ("MADDPG (the MADDPG paper): one learner per agent, two training pipelines of "
                   "compute units, a ring; MPE tasks")
    run_options = {"steps": "steps"}

    @property
    def schema(self) -> dict:
        return {"environment": "", "episodes": Knob(25000, 1, COUNT_MAX),
                "steps": Knob(0, 0, COUNT_MAX), "window": Knob(100, 1, COUNT_MAX),
                "policies": {"__free__": True}, "task": {"__free__": True},
                "learning": dict(_LEARNING),
                "dse": {"search": "", "f": Knob(0, 0, 1 << 20), "budget": "guideline"}}

    def validate(self, m: dict) -> None:
        where, lr = m["__path__"], m["learning"]     # ranges: the schema's Knobs
        if lr["grad_clip"] <= 0:
            raise ManifestError(f"{where}: 'learning.grad_clip' must be positive (the learner "
                                f"clips every gradient tensor), not {lr['grad_clip']}")
        if m["dse"]["search"] not in ("", "base", "latency"):
            raise ManifestError(f"{where}: 'dse.search' must be 'base' or 'latency', not "
                                f"{m['dse']['search']!r}")
        if m["dse"]["budget"] not in BUDGETS:
            raise ManifestError(f"{where}: 'dse.budget' must be {' or '.join(map(repr, BUDGETS))}"
                                f" (each SLR's share at UG949's utilisation guideline, or its "
                                f"whole capacity), not {m['dse']['budget']!r}")
        try:
            config(m)                      # MaddpgConfig's own checks
        except ManifestError as exc:
            raise ManifestError(f"{where}: {exc}") from None
        from rlaccel.isa.arch import load_arch
        check_arch(m, load_arch(m["arch"]))
        memory(m)

    def prepare(self, m: dict, arch) -> Run:
        from rlaccel.machines.maddpg.host import MaddpgHost
        cfg = config(m)
        host = MaddpgHost(cfg, m["episodes"], m["steps"], m["window"])
        task = host.training.task
        check_task(m, arch, task)
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

    def headline(self, r: dict):
        """The common block's figures: instruction issue, the MADDPG paper's throughput
        measure (IPS, eq. 7: one environment step and one update round, T_SG measured on
        this machine) and the environment steps the host took."""
        from rlaccel.programs.summary import Headline, measured
        ips = ((r.get("ips") or {}) | r.get("timing", {}).get("ips", {})).get("system")
        return Headline(utilisation={"instruction issue": r["utilization"]["issue_busy"]},
                        throughput=measured("IPS", ips, "iterations/s",
                                            "eq. 7, T_SG measured on this machine"),
                        no_throughput="no update round, so no IPS (eq. 7)",
                        env_steps=r["learning"]["steps"])


PLUGIN = MaddpgPlugin()

"""The DARL machine's run plug-in: HDC-based Q-learning on the ``darl`` machine.

A manifest (``machines/darl/programs/cartpole.toml``, ``lunarlander.toml``) names the task (its preset,
:data:`~.config.TASKS`), the number of agents (1, 2, 4 or 8: ``--set agents=A`` makes the
architecture variant with ``machine.agents = A``), the budget (``stages``; ``--steps N`` stops
at the first stage end after N environment steps; ``stop_at_target``) and any change to the
preset's hyper-parameters (``[learning]``, :class:`~.config.HdqlConfig`'s keys). Every agent
runs ``hdql.s`` (QHD's form), or ``hdql_printed.s`` with ``learning.form = "printed"`` (the
DARL paper's eq. 9 and 14 as printed, :data:`FORM_PROGRAMS`); :mod:`.host` drives them.

The report adds ``latency_cycles`` (a training iteration on chip, Table 1's L, from the
program's mark 2), ``latency_inference_cycles``, the all-reduce's cycles per stage, IPS by
eq. 23-25 (``ips.system``: T_env measured on this host, the transfers as the host link
models them, the kernel simulated), power and IPS/W from Table 2's power model, and the
learning curve (``learning.returns``: the stage means).
"""

from __future__ import annotations

from dataclasses import fields

from rlaccel.programs.manifest import COUNT_MAX, Knob, ManifestError
from rlaccel.programs.plugin import PackagePlugin, Run
from rlaccel.util.memory import reserve

__all__ = ["PLUGIN", "DarlPlugin", "config", "T_ENV_QUIET", "FORM_PROGRAMS"]

#: seconds of one environment step through gymnasium.make on a quiet machine
#: (the project's reference speeds; machines/darl/README.md section 4)
T_ENV_QUIET = {"CartPole-v1": 6.4e-6, "LunarLander-v3": 36.3e-6}

#: the kernel of each form of the algorithm (``learning.form``; ``qhd`` is the manifest's
#: ``program``), found beside the manifest's program
FORM_PROGRAMS = {"qhd": "hdql.s", "printed": "hdql_printed.s"}

#: the machine's algorithm: settings the kernel implements only one way
_FIXED = {"number": "fixed32", "act_with": "target", "norm": "dimension", "imag_sign": 1}


def config(m: dict):
    """The run's HdqlConfig: the task's preset, the manifest's [learning], agents, seed."""
    from rlaccel.machines.darl.config import HdqlConfig, task_config
    where = m["__path__"]
    lr = dict(m["learning"])
    keys = [f.name for f in fields(HdqlConfig)
            if f.name not in ("agents", "seed", "stages", "env", "target")]
    for key in lr:
        if key not in keys:
            raise ManifestError(f"{where}: 'learning.{key}' is not a setting of the run "
                                f"(learning keys: {', '.join(keys)})")
    for key, only in _FIXED.items():
        if key in lr and lr[key] != only:
            raise ManifestError(f"{where}: 'learning.{key}' = {lr[key]!r}: the DARL kernel "
                                f"(hdql.s) implements {key} = {only!r} only")
    try:
        return task_config(m["task"], agents=m["agents"], seed=m["seed"], stages=m["stages"],
                           **{**lr, "number": "fixed32"})
    except ManifestError as exc:
        raise ManifestError(f"{where}: {exc}") from None


class DarlPlugin(PackagePlugin):
    machine = "darl"
    description = ("DARL (the DARL paper): hyperdimensional Q-learning, codebook encoder, chunked "
                   "regression, delayed update cache, butterfly all-reduce; CartPole, "
                   "LunarLander")
    run_options = {"steps": "steps"}

    @property
    def schema(self) -> dict:
        return {"task": "cartpole",
                "agents": Knob(1, 1, 8, why="the U280 holds at most eight agents, the DARL paper, "
                                            "section 6.2"),
                "stages": Knob(200, 1, COUNT_MAX), "steps": Knob(0, 0, COUNT_MAX),
                "stop_at_target": False, "learning": {"__free__": True}}

    def validate(self, m: dict) -> None:
        from rlaccel.isa.arch import load_arch
        from rlaccel.machines.darl.tlm import stages
        from rlaccel.util.errors import ArchError

        from rlaccel.programs.arch_variant import arch_variant
        where = m["__path__"]                      # ranges: the schema's Knobs
        try:
            stages(m["agents"])
        except ArchError:
            raise ManifestError(f"{where}: agents = {m['agents']}: the butterfly network "
                                f"connects 1, 2, 4 or 8 agents (a power of two)") from None
        cfg = config(m)
        from rlaccel.machines.darl.host import MAXB
        if cfg.batch > MAXB:
            raise ManifestError(f"{where}: 'learning.batch' = {cfg.batch} exceeds the {MAXB} "
                                f"samples one exchange of hdql.s carries")
        arch = load_arch(m["arch"])
        if arch.knobs.agents != m["agents"]:
            m["arch"] = arch_variant(m["arch"], {"machine.agents": m["agents"]})
            arch = load_arch(m["arch"])
        if cfg.d % arch.knobs.lanes:
            raise ManifestError(f"{where}: 'learning.d' = {cfg.d} is not a multiple of the "
                                f"chunk ({arch.knobs.lanes}: machine.lanes of '{arch.name}')")
        if cfg.d > arch.knobs.hv_dim:
            raise ManifestError(f"{where}: 'learning.d' = {cfg.d} exceeds machine.hv_dim = "
                                f"{arch.knobs.hv_dim} of '{arch.name}'")
        # every agent's buffer: at least an observation word before and after, the action
        # and the reward of each transition (float64 and int64)
        reserve(8 * 4 * cfg.buffer * cfg.agents, f"{where}: 'learning.buffer' = "
                f"{cfg.buffer}", f"the replay buffers of {cfg.agents} agent(s)")

    def prepare(self, m: dict, arch) -> Run:
        from rlaccel.machines.darl.host import DarlHost
        cfg = config(m)
        host = DarlHost(cfg, m["steps"], m["stop_at_target"])
        defines = {"NF": host.n_obs, "NA": host.n_actions, "D": cfg.d,
                   "AVG": int(cfg.sync == "average")}
        program = self.program_path(m)
        if cfg.form != "qhd":             # the form's kernel beside the manifest's program
            program = program.with_name(FORM_PROGRAMS[cfg.form])
        return Run(program, defines, hosts=host.hosts, state=host)

    def bind(self, m: dict, run: Run, binary, arch) -> None:
        for h in run.hosts:
            h.bind(binary)

    def progress(self, run: Run) -> list[str]:
        h = run.state
        c = h.curve
        lines = []
        while h.reported < len(c.agent_returns):
            i = h.reported
            r = c.agent_returns[i]
            lines.append(f"stage {i + 1}: mean return {sum(r) / len(r):.1f}"
                         f" ({len(r)} agent(s)), epsilon {c.epsilon[i]:.3f}")
            h.reported += 1
        return lines

    def headline(self, r: dict):
        """The common block's figures: the regression arrays' and the issue slots'
        utilisation, the DARL paper's throughput (eq. 23's IPS under the one host reading of
        :data:`~.table2.HOST`) and the agents' environment steps."""
        from rlaccel.programs.summary import Headline, measured
        util = {}
        kernel = r.get("unit_utilisation_kernel") or {}
        if "regression" in kernel:
            util["regression arrays (agent 0's kernel time)"] = kernel["regression"]
        util["instruction issue"] = r["utilization"]["issue_busy"]
        ips = r.get("ips", {}).get("quiet_host_parallel_envs")
        return Headline(
            utilisation=util,
            throughput=measured("IPS (eq. 23)", ips, "inferences/s",
                                "a quiet host's environment step, the agents' at once"),
            no_throughput="no training iteration ran (eq. 23 needs one)",
            env_steps=r["learning"]["env_steps"])


PLUGIN = DarlPlugin()

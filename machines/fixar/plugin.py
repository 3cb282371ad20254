"""The FIXAR machine's run plug-in: manifests, the DDPG accelerator program, the host
driver, results and ``rlaccel report fixar``.

A manifest (``machines/fixar/programs/*.toml``) names the architecture (``fixar``: q4.28
weights, fixed32 activations until the quantization delay; ``fixar-fixed16``: q8.8
activations from the start), the
program (``ddpg.s``), the MuJoCo (or any continuous gymnasium) environment, the step budget
(``rlaccel run --steps N``) and the DDPG knobs of ``[learning]``
(:class:`~rlaccel.machines.fixar.config.DdpgConfig`, ``machines/fixar/README.md`` section 9);
``[host]`` has the host link's per-call run-time overhead (the FIXAR paper's Fig. 9; ``-1``: derived from
the paper's own figures, ``machines/fixar/tlm/pcie.py``).
"""

from __future__ import annotations

from rlaccel.programs.manifest import COUNT_MAX, Knob, ManifestError
from rlaccel.programs.plugin import PackagePlugin, Run
from rlaccel.util.memory import reserve

__all__ = ["PLUGIN", "FixarPlugin", "config", "LEARNING", "MAX_WIDTH", "MAX_BUFFER"]

#: the widest hidden layer and the largest replay buffer a manifest may ask for (the memory
#: they take is estimated too, before anything is allocated)
MAX_WIDTH = 1 << 16
MAX_BUFFER = 1 << 32

#: learning keys of the manifest (DdpgConfig's; qat_delay -1: no QAT), with their ranges
LEARNING = {"batch": Knob(64, 1, 1 << 16), "start_steps": Knob(10000, 0, COUNT_MAX),
            "buffer": Knob(1000000, 1, MAX_BUFFER),
            "hidden": Knob([400, 300], 1, MAX_WIDTH, length=2,
                           why="the program, ddpg.s, has two hidden layers"),
            "lr_actor": Knob(1e-4, 0.0), "lr_critic": Knob(1e-4, 0.0),
            "gamma": Knob(0.99, 0.0, 1.0), "tau": Knob(0.001, 0.0, 1.0),
            "noise_sigma": Knob(0.1, 0.0, 100.0), "eval_every": Knob(5000, 1, COUNT_MAX),
            "eval_episodes": Knob(10, 1, 1 << 20), "qat_delay": Knob(-1, -1, COUNT_MAX),
            "qat_bits": Knob(16, 1, 17)}


def memory(m: dict) -> None:
    """Refuse networks and a replay buffer larger than this process can hold (estimated from
    the manifest, at least: one state and one action word per transition)."""
    lr, where = m["learning"], m["__path__"]
    h1, h2 = lr["hidden"]
    # actor, critic, their targets, Adam's two moments, gradients: float64 and int64 words
    reserve(8 * 8 * 2 * (h1 * h2 + h1 + h2), f"{where}: 'learning.hidden' = {lr['hidden']}",
            "the networks, their targets and optimiser state")
    reserve(4 * 5 * lr["buffer"], f"{where}: 'learning.buffer' = {lr['buffer']}",
            "the replay buffer")


def config(m: dict, arch=None):
    """The run's DdpgConfig (fixed-point numerics; the weight, gradient and activation
    storage formats from the architecture, :func:`~.tlm.state.formats`)."""
    from rlaccel.machines.fixar.config import DdpgConfig
    lr = dict(m["learning"])
    lr["hidden"] = tuple(lr["hidden"])
    lr["qat_delay"] = None if lr["qat_delay"] < 0 else lr["qat_delay"]
    fmt = {}
    if arch is not None:
        from rlaccel.machines.fixar.tlm.state import formats
        f = formats(arch)
        fmt = {"act_format": f.store.name, "weight_format": f.weight.name,
               "grad_format": f.grad.name, "error_format": f.acc.name}
    return DdpgConfig(env_id=m["environment"], seed=m["seed"], steps=m["steps"],
                      numerics="fixed", **fmt, **lr)


class FixarPlugin(PackagePlugin):
    machine = "fixar"
    description = ("FIXAR (the FIXAR paper): DDPG with every DNN operation on two fixed-point AAP "
                   "cores, QAT, MuJoCo on the host")
    run_options = {"steps": "steps"}

    @property
    def schema(self) -> dict:
        return {"environment": "", "steps": Knob(100000, 1, COUNT_MAX),
                "learning": dict(LEARNING),
                "host": {"pcie_overhead_s": Knob(-1.0, -1.0, 1.0)}}

    def validate(self, m: dict) -> None:
        where, lr = m["__path__"], m["learning"]
        if not m["environment"]:
            raise ManifestError(f"{where}: 'environment' is missing (a gymnasium id such as "
                                f"'HalfCheetah-v5')")
        oh = m["host"]["pcie_overhead_s"]
        if oh < 0 and oh != -1.0:
            raise ManifestError(f"{where}: 'host.pcie_overhead_s' must be -1 (the cost "
                                f"model's cited figure) or seconds >= 0, not {oh}")
        try:
            config(m)
        except Exception as exc:          # DdpgConfig's own checks name the key
            raise ManifestError(f"{where}: {exc}") from None
        from rlaccel.isa.arch import load_arch
        arch = load_arch(m["arch"])
        config(m, arch)                   # the formats' combination, an ArchError naming the key
        if lr["batch"] > arch.knobs.max_batch:
            raise ManifestError(f"{where}: 'learning.batch' = {lr['batch']} exceeds the "
                                f"{arch.knobs.max_batch} vectors an instruction of "
                                f"'{arch.name}' takes (machine.max_batch)")
        memory(m)

    def prepare(self, m: dict, arch) -> Run:
        from rlaccel.machines.fixar.driver import FixarDriver
        cfg = config(m, arch)                     # (validate checked the batch on arch)
        drv = FixarDriver(cfg)
        h1, h2 = cfg.hidden
        defines = {"S": drv.S, "A": drv.A, "B": cfg.batch, "H1": h1, "H2": h2,
                   "GAMMA": cfg.gamma, "QBITS": cfg.qat_bits}
        return Run(self.program_path(m), defines, hosts=drv, state=drv)

    def bind(self, m: dict, run: Run, binary, arch) -> None:
        run.state.bind(binary)
        run.binary = binary

    def headline(self, r: dict):
        """The common block's figures: the PEs' and the issue slots' utilisation, the
        accelerator IPS (the FIXAR paper's Fig. 10 measure; the run's mean over its phases)
        and the training run's environment steps."""
        from rlaccel.programs.summary import Headline, measured
        u, ips = r["utilization"], r.get("ips", {})
        util = ({"PEs": u["pe"]} if "pe" in u else {}) | {"instruction issue": u["issue_busy"]}
        tp = measured("accelerator", ips.get("accelerator"), "IPS",
                      "batch samples per simulated second of training, the run's mean; "
                      "paper 53,826.8")
        return Headline(utilisation=util, throughput=tp,
                        no_throughput="no training step ran (the warm-up took the budget)",
                        env_steps=r["config"]["steps"],
                        steps_what="training environment steps (evaluation episodes apart)")

    def progress(self, run: Run) -> list[str]:
        lines, run.state.progress_lines = run.state.progress_lines, []
        return lines


PLUGIN = FixarPlugin()

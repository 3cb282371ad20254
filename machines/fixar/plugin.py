"""The FIXAR program family (seed 002): manifests, the DDPG accelerator program, the host
driver, results and ``rlaccel report fixar``.

A manifest (``machines/fixar/*.toml``) names the architecture (``fixar``: fixed32 activations
until the quantization delay; ``fixar-fixed16``: q8.8 activations from the start), the
program (``ddpg.s``), the MuJoCo (or any continuous gymnasium) environment, the step budget
(``rlaccel run --steps N``) and the DDPG knobs of ``[learning]``
(:class:`~rlaccel.machines.fixar.config.DdpgConfig`, ``machines/fixar/README.md`` section 9);
``[host]`` has the host link's per-call run-time overhead (seed Fig. 9; ``-1``: derived from
the seed's own figures, ``machines/fixar/tlm/pcie.py``).
"""

from __future__ import annotations

from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.plugin import PackagePlugin, Run

__all__ = ["PLUGIN", "FixarPlugin", "config", "LEARNING"]

#: learning keys of the manifest (DdpgConfig's; qat_delay -1: no QAT)
LEARNING = {"batch": 64, "start_steps": 10000, "buffer": 1000000, "hidden": [400, 300],
            "lr_actor": 1e-4, "lr_critic": 1e-4, "gamma": 0.99, "tau": 0.001,
            "noise_sigma": 0.1, "eval_every": 5000, "eval_episodes": 10, "qat_delay": -1,
            "qat_bits": 16}


def config(m: dict, arch=None):
    """The run's DdpgConfig (fixed-point numerics; the activation storage format from the
    architecture's ``[fixar] store``)."""
    from rlaccel.machines.fixar.config import DdpgConfig
    lr = dict(m["learning"])
    lr["hidden"] = tuple(lr["hidden"])
    lr["qat_delay"] = None if lr["qat_delay"] < 0 else lr["qat_delay"]
    store = "fixed32"
    if arch is not None:
        from rlaccel.machines.fixar.tlm.state import _config
        store = _config(arch)["store"]
    return DdpgConfig(env_id=m["environment"], seed=m["seed"], steps=m["steps"],
                      numerics="fixed", act_format=store, **lr)


class FixarPlugin(PackagePlugin):
    machine = "fixar"
    description = ("FIXAR (seed 002): DDPG with every DNN operation on two fixed-point AAP "
                   "cores, QAT, MuJoCo on the host")
    run_options = {"steps": "steps"}

    @property
    def schema(self) -> dict:
        return {"environment": "", "steps": 100000, "learning": dict(LEARNING),
                "host": {"pcie_overhead_s": -1.0}}

    def validate(self, m: dict) -> None:
        where, lr = m["__path__"], m["learning"]
        if not m["environment"]:
            raise ManifestError(f"{where}: 'environment' is missing (a gymnasium id such as "
                                f"'HalfCheetah-v5')")
        if len(lr["hidden"]) != 2:
            raise ManifestError(f"{where}: 'learning.hidden' = {lr['hidden']}: the program "
                                f"(ddpg.s) has two hidden layers")
        if lr["qat_delay"] < -1:
            raise ManifestError(f"{where}: 'learning.qat_delay' must be -1 (no QAT) or a step, "
                                f"not {lr['qat_delay']}")
        if not 1 <= lr["qat_bits"] <= 17:
            raise ManifestError(f"{where}: 'learning.qat_bits' must be 1..17, not "
                                f"{lr['qat_bits']}")
        oh = m["host"]["pcie_overhead_s"]
        if oh < 0 and oh != -1.0:
            raise ManifestError(f"{where}: 'host.pcie_overhead_s' must be -1 (derived from the "
                                f"seed) or seconds >= 0, not {oh}")
        try:
            config(m)
        except Exception as exc:          # DdpgConfig's own checks name the key
            raise ManifestError(f"{where}: {exc}") from None

    def prepare(self, m: dict, arch) -> Run:
        from rlaccel.machines.fixar.driver import FixarDriver
        cfg = config(m, arch)
        if cfg.batch > arch.knobs.max_batch:
            raise ManifestError(f"{m['__path__']}: 'learning.batch' = {cfg.batch} exceeds the "
                                f"{arch.knobs.max_batch} vectors an instruction of "
                                f"'{arch.name}' takes (machine.max_batch)")
        drv = FixarDriver(cfg)
        h1, h2 = cfg.hidden
        defines = {"S": drv.S, "A": drv.A, "B": cfg.batch, "H1": h1, "H2": h2,
                   "GAMMA": cfg.gamma, "QBITS": cfg.qat_bits}
        return Run(self.program_path(m), defines, hosts=drv, state=drv)

    def bind(self, m: dict, run: Run, binary, arch) -> None:
        run.state.bind(binary)
        run.binary = binary

    def progress(self, run: Run) -> list[str]:
        lines, run.state.progress_lines = run.state.progress_lines, []
        return lines

    # ---- rlaccel report fixar ----
    has_report = True


PLUGIN = FixarPlugin()

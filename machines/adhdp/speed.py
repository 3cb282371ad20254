"""ADHDP's speed workload (``bench/speed.py``): cart-pole on the Q6.18 chip (Fig. 2's
program, ``stop_on_success`` off) against the float64 golden model (:mod:`.reference`) on
the same trials, per environment step."""

from __future__ import annotations

from rlaccel.programs.speed import Workload

__all__ = ["WORKLOAD"]

_OVERRIDES = ("stop_on_success=false", "virtual_update=false")


def _steps(report: dict) -> int:
    return sum(report["learning"]["steps_per_trial"])


def _reference(trials: int, seed: int) -> int:
    """The golden model for ``trials`` trials of the same manifest (its own assembly of the
    program on ``adhdp-f64``, as ``machines/adhdp/bench/tlm_speed.py`` runs it)."""
    from rlaccel.assembler.assemble import assemble_file
    from rlaccel.isa.arch import load_arch
    from rlaccel.isa.machine import machine
    from rlaccel.machines.adhdp.host import Trials
    from rlaccel.machines.adhdp.plugin import defines, learning_config, program_path
    from rlaccel.machines.adhdp.reference import AdhdpReference
    from rlaccel.programs.runner import configure
    manifest = machine("adhdp").programs / "cartpole.toml"
    _, m = configure(manifest, list(_OVERRIDES), arch="adhdp-f64", trials=trials, seed=seed)
    arch = load_arch("adhdp-f64")
    a = assemble_file(program_path(m), arch=arch, defines=defines(m))
    ref = AdhdpReference.from_binary(a.binary, arch, m["virtual_update"])
    return sum(ref.run(Trials(learning_config(m)))["steps_per_trial"])


WORKLOAD = Workload(
    title="cart-pole Q6.18, Fig. 2",
    manifest="cartpole.toml", option="trials", overrides=_OVERRIDES,
    budgets={"quick": (2, 10), "full": (2, 20)},
    steps=_steps, reference=_reference,
    seeds={"quick": (20, 5), "full": (50, 20)})

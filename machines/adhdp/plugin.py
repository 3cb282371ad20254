"""The ADHDP machine's run plug-in: manifests, the host, results and summary.

A manifest (``machines/adhdp/*.toml``) names the Fig. 2 program and its Fig. 7 twin
(``virtual_update`` picks one), the plant, the network sizes (checked against the program's
symbols), the chip-side learning constants (passed to the program as defines; a constant the
manifest leaves out keeps the program's ``.default``) and the host's learning-rate schedule
(defaults: :class:`~rlaccel.machines.adhdp.host.LearningConfig`).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from rlaccel.programs.manifest import COUNT_MAX, FromProgram, Knob, ManifestError
from rlaccel.programs.plugin import Plugin, Run

__all__ = ["PLUGIN", "AdhdpPlugin", "program_path", "learning_config", "defines"]

#: manifest key -> the program's define, the value's type (the default is the program's)
#: and its range
_CHIP = {"gamma": ("GAMMA", float, 0.0, 1.0), "Ic": ("IC", int, 1, (1 << 31) - 1),
         "Ia": ("IA", int, 1, (1 << 31) - 1), "Ec": ("EC_TH", float, 0.0, None),
         "Ea": ("EA_TH", float, 0.0, None), "init_weight": ("W0", float, 0.0, None)}

#: the host's learning-rate schedule: ranges
_HOST_RANGES = {"lr_every": (1, COUNT_MAX)}

#: the most neurons a layer of the manifest's networks may name (they are checked against
#: the program's symbols; the chip's neuron memory holds 64)
MAX_WIDTH = 1 << 16


def _host_defaults() -> dict:
    from rlaccel.machines.adhdp.host import LearningConfig
    return {f.name: Knob(f.default, *_HOST_RANGES.get(f.name, (0.0, None)))
            for f in fields(LearningConfig) if f.name.startswith("lr_")}


def program_path(m: dict) -> Path:
    """The program a manifest runs (Fig. 7 when virtual_update is on)."""
    return Path(m["__path__"]).parent / (m["program_vu"] if m["virtual_update"] else
                                         m["program"])


#: ``learning.critic_form`` -> the program's LINE12 (layout.inc): what the critic loop updates
CRITIC_FORMS = {"fig2": 1, "si-wang": 0}


def defines(m: dict) -> dict:
    """The program's defines: the seed and the chip-side constants the manifest sets."""
    out = {"SEED": m["seed"], "LINE12": CRITIC_FORMS[m["learning"]["critic_form"]]}
    for key, (name, *_) in _CHIP.items():
        if m["learning"].get(key) is not None:
            out[name] = m["learning"][key]
    return out


def learning_config(m: dict):
    """The host-side knobs of a manifest."""
    from rlaccel.machines.adhdp.host import LearningConfig
    lr = m["learning"]
    return LearningConfig(env_id=m["environment"], env_kwargs=m["environment_kwargs"],
                          trials=m["trials"], max_steps=m["max_steps"],
                          stop_on_success=m["stop_on_success"], lr_critic=lr["lr_critic"],
                          lr_actor=lr["lr_actor"], lr_decay=lr["lr_decay"],
                          lr_every=lr["lr_every"], lr_threshold=lr["lr_threshold"],
                          lr_floor=lr["lr_floor"], seed=m["seed"])


#: why the model's power differs from the paper's 25 mW (README, "Energy and power")
POWER_RESIDUAL = ("every register bit clocked every cycle at Aladdin's 40 nm figure, scaled: "
                  "no clock gating assumed, and the chip's registers are counted as flip-flops")


class AdhdpPlugin(Plugin):
    machine = "adhdp"
    description = "ADHDP actor-critic on the ADHDP accelerator (the ADHDP paper), online, one plant"
    run_options = {"trials": "trials"}

    @property
    def schema(self) -> dict:
        return {
            "program_vu": "", "virtual_update": False, "environment": "",
            "environment_kwargs": {"__free__": True},
            "trials": Knob(100, 1, COUNT_MAX), "max_steps": Knob(1000, 1, COUNT_MAX),
            "stop_on_success": True,
            "network": {"actor": Knob([4, 6, 1], 1, MAX_WIDTH, length=3),
                        "critic": Knob([5, 6, 1], 1, MAX_WIDTH, length=3)},
            "learning": {**{k: Knob(FromProgram(t), lo, hi)
                            for k, (_, t, lo, hi) in _CHIP.items()},
                         "critic_form": "fig2", **_host_defaults()},
        }

    def validate(self, m: dict) -> None:
        where, lr = m["__path__"], m["learning"]     # ranges: the schema's Knobs
        if lr["critic_form"] not in CRITIC_FORMS:
            raise ManifestError(f"{where}: 'learning.critic_form' must be one of "
                                f"{', '.join(repr(f) for f in CRITIC_FORMS)}, not "
                                f"{lr['critic_form']!r}")

    def prepare(self, m: dict, arch) -> Run:
        from rlaccel.machines.adhdp.host import Trials
        return Run(program_path(m), defines(m), state=Trials(learning_config(m)))

    def bind(self, m: dict, run: Run, binary, arch) -> None:
        from rlaccel.isa.dtypes import get_dtype

        from rlaccel.machines.adhdp.host import AdhdpHost
        sym = {s.name: s for s in binary.symbols}
        missing = [s for s in ("X", "HA", "HC") if s not in sym]
        if missing:
            raise ManifestError(f"{run.program}: the program has no symbol(s) "
                                f"{', '.join(missing)}, which the ADHDP host needs")
        nx, nha, nhc = sym["X"].length, sym["HA"].length, sym["HC"].length
        got = {"actor": [nx, nha, 1], "critic": [nx + 1, nhc, 1]}
        for net in ("actor", "critic"):
            if list(m["network"][net]) != got[net]:
                raise ManifestError(f"{m['__path__']}: network.{net} = {m['network'][net]} "
                                    f"but the program's {net} is "
                                    f"{'-'.join(map(str, got[net]))}")
        chip_vu = arch.extra.get("datapath", {}).get("virtual_update", False)
        if not isinstance(chip_vu, bool):
            raise ManifestError(f"{arch.path or arch.name}: [datapath] virtual_update must be "
                                f"true or false, not {chip_vu!r}")
        if m["virtual_update"] and not chip_vu:
            raise ManifestError(f"{m['__path__']}: the virtual-update program needs the chip "
                                f"with the virtual update (the ADHDP paper built two: 'adhdp' and "
                                f"'adhdp-vu'); '{arch.name}' has no [datapath] "
                                f"virtual_update = true (run it with --arch adhdp-vu)")
        from rlaccel.tlm.families.base.energy import source_problems
        problems = source_problems(arch)
        if problems:
            raise ManifestError("; ".join(problems))
        run.hosts = AdhdpHost(run.state, binary, get_dtype(arch.knobs.dtype))
        run.reported = 0

    def progress(self, run: Run) -> list[str]:
        trials, lines = run.state, []
        while run.reported < len(trials.steps):
            i = run.reported
            n, failed = trials.steps[i], trials.failed[i]
            lines.append(f"trial {i + 1:4d}: {n:5d} steps "
                         f"{'(failed)' if failed else '(success)'}")
            run.reported += 1
        return lines

    def progress_position(self, m: dict, run: Run, platform) -> tuple[int, int | None, str]:
        """Trials finished of the manifest's (a run that succeeds stops sooner)."""
        return len(run.state.steps), m["trials"], "trials"

    def results(self, m: dict, run: Run, res, platform) -> dict:
        trials = run.state
        link = platform.agent.link
        steps = sum(trials.steps)
        return {"virtual_update": m["virtual_update"], "learning": trials.learning(),
                "hostlink": link.as_dict(),
                "env_steps_per_s": (steps / res.time_s) if res.time_s else 0.0,
                # the cost model's energy of the whole run per plant step (Fig. 5's other axis)
                "energy_per_step_pj": res.energy_pj / steps if steps else 0.0}

    def batch_hosts(self, runs: list, arch):
        """The hosts of a batch of runs, answered together (None: each member's own)."""
        from rlaccel.isa.dtypes import get_dtype

        from rlaccel.machines.adhdp.batch import batch_hosts
        return batch_hosts(runs, get_dtype(arch.knobs.dtype))

    def headline(self, r: dict):
        """The common block's figures: the MAC lanes' and the issue slots' utilisation, and
        the ADHDP paper's speed measure, plant time steps per second (its Section V
        compares accumulated time steps against software), here per simulated second."""
        from rlaccel.programs.summary import Headline, Throughput
        u = r["utilization"]
        return Headline(utilisation={"MAC lanes": u["mac_lanes"],
                                     "instruction issue": u["issue_busy"]},
                        throughput=Throughput("plant time steps", r["env_steps_per_s"],
                                              "steps/s", "per simulated second"),
                        env_steps=sum(r["learning"]["steps_per_trial"]),
                        steps_what="plant time steps")

    def summary(self, r: dict) -> str:
        """The lines after the common block: the update form, learning, power beside the
        paper's, where the cycles go, and per-iteration figures."""
        learn = r["learning"]
        lines = [f"  program:  {'virtual' if r['virtual_update'] else 'regular'} update, "
                 f"{r['program_bytes']} instruction bytes",
                 f"  learning: {learn['trials']} trials, "
                 + (f"success at trial {learn['trials_to_success']} "
                    f"({learn['max_steps']} steps balanced)" if learn["success"] else
                    f"no trial reached {learn['max_steps']} steps (best "
                    f"{max(learn['steps_per_trial'] or [0])})"),
                 f"  power:    {r['power_mw']:.2f} mW against the paper's 25 mW "
                 f"({r['power_mw'] / 25 - 1:+.0%}): {POWER_RESIDUAL}",
                 f"  cycles:   {r['stall_cycles']:,} stalled, {r['host_cycles']:,} on the "
                 f"host link"]
        for name, reg in r["per_iteration"].items():
            cats = ", ".join(f"{k} {v['cycles']:.1f}" for k, v in reg["by_category"].items())
            lines.append(f"  per {name} iteration ({reg['iterations']:,}): "
                         f"{reg['cycles']:.1f} cycles ({cats}), {reg['energy_pj']:.0f} pJ")
        sim = r["timing"]["sim"]
        lines.append(f"  simulator speed: {sim['instructions_per_s']:,.0f} instructions/s, "
                     f"{sim['cycles_per_s']:,.0f} simulated cycles/s")
        return "\n".join(lines)

    # ---- rlaccel report adhdp ----
    has_report = True

    def add_report_arguments(self, parser) -> None:
        from rlaccel.machines.adhdp.report import add_arguments
        add_arguments(parser)

    def report(self, args) -> int:
        from rlaccel.machines.adhdp.report import cmd_report
        return cmd_report(args)


PLUGIN = AdhdpPlugin()

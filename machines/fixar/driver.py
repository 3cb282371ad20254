"""The host driver of the simulated FIXAR (the FIXAR paper, Fig. 3): the MuJoCo environment, the
replay buffer and evaluation on the CPU, every DNN operation on the accelerator
(``machines/fixar/programs/ddpg.s``), over the platform's host link.

:class:`FixarDriver` answers the program's ``cc.host`` exchanges. It runs the same time-step
loop as :func:`~.host.train` (the float and fixed-point references' loop) written as a
coroutine, so both take the same random choices in the same order: the host's batches and
warm-up actions (:class:`~.host.DdpgHost`), the initial weights (``default_rng([seed, 1])``,
the reference's), the PRNG seed (the accelerator's noise stream 1). Per exchange:

1. the first brings the initial weights of both networks (the targets are copies) and the
   constants (PRNG seed, tau as the soft unit's register, sigma);
2. a training request: ``ST`` (the current state), the batch (``[s | a]``, ``[s' | 0]``,
   ``(r, done)``), Adam's seven float32 constants per network for this step, ``FREEZE`` at
   the quantization delay; the accelerator answers with the exploring action;
3. an evaluation request (``EVAL``): the deterministic action for a state, ten episodes
   every ``eval_every`` steps from fixed start states (:data:`~.host.EVAL_SEED_OFFSET`);
4. ``DONE`` when the step budget is spent.

Warm-up steps (uniform random actions) need no accelerator. The host's wall time per part
goes to the link's :class:`~rlaccel.tlm.hostlink.HostTimeline` (``environment``, ``replay
sampling``, ``packing``, ``evaluation environment``), measured on this machine.

Checkpoints (``rlaccel run --checkpoint``, :mod:`rlaccel.programs.checkpoint`): the driver
can be saved while it waits for the answer to a training request (the first such exchange
at or after each ``--checkpoint-every``-th; not during an evaluation or the warm-up, which
hold an episode of the evaluation environment or no request open). It saves its counters,
the host (:meth:`~.host.DdpgHost.checkpoint_state`) and the ddpg family's per-agent state
(QAT monitors and quantisers, the freeze step, the PRNG streams' registers); a resumed
driver takes the answer the saved run was waiting for and goes on from there.
"""

from __future__ import annotations

import time

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import RlaccelError
from rlaccel.machines.fixar.tlm.adam import AdamHyper, constants
from rlaccel.machines.fixar.tlm.soft_update import tau_raw
from rlaccel.tlm.hostlink import HostTimeline

from rlaccel.machines.fixar.config import DdpgConfig
from rlaccel.machines.fixar.host import EVAL_SEED_OFFSET, DdpgHost
from rlaccel.machines.fixar.network import actor_net, critic_net, init_params

__all__ = ["FixarDriver", "NEEDS"]

#: the symbols the driver writes or reads
NEEDS = ("IN", "RD", "DONE", "EVAL", "FREEZE", "ST", "BAT", "NXT", "HPC", "HPA", "INIT",
         "WINIT", "SEEDW", "TAUW", "SIGW", "OUTA")

_ONE = 1 << 16


class FixarDriver:
    """The host of one simulated run (module docstring)."""

    def __init__(self, cfg: DdpgConfig) -> None:
        self.cfg = cfg
        self.host = DdpgHost(cfg)
        self.S, self.A = self.host.state_dim, self.host.action_dim
        self.acc = get_dtype("fixed32")
        self.w = get_dtype(cfg.weight_format)          # the weight memory's words
        self.timeline = HostTimeline()
        self.actor_net = actor_net(self.S, self.A, cfg.hidden)
        self.critic_net = critic_net(self.S, self.A, cfg.hidden)
        hp = dict(beta1=cfg.beta1, beta2=cfg.beta2, eps=cfg.adam_eps)
        self.hp_actor = AdamHyper(lr=cfg.lr_actor, **hp)
        self.hp_critic = AdamHyper(lr=cfg.lr_critic, **hp)
        self.updates = 0
        self.quantized_at: int | None = None
        self.train_exchanges = 0
        self.eval_exchanges = 0
        self.sym: dict = {}
        self._gen = None
        self._done = False
        self.wall = {"environment": 0.0, "sampling": 0.0, "evaluation": 0.0}
        #: the same parts in this process's CPU seconds (on a shared machine the wall clock
        #: also counts waiting for a core)
        self.cpu = {"environment": 0.0, "sampling": 0.0, "packing": 0.0}
        self.progress_lines: list[str] = []
        #: None: a resumed run reports the whole run (its ``sim.checkpoint`` says where it
        #: resumed); kept for the report's ``resumed_at`` key
        self.resumed_at: int | None = None
        self._awaiting = False         # a training request is open (the driver can be saved)
        self._restored = False         # restored from a checkpoint, not yet asked

    # ---- checkpoints (rlaccel.programs.checkpoint.Checkpointable) ----
    #: the per-agent state of the ddpg family, saved with the driver
    checkpoint_agent_state = ("fixar",)

    def checkpoint_state(self, agent) -> tuple[dict, dict] | None:
        """The driver's counters and measured times, the host and the family's state, while
        a training request is open; None otherwise (module docstring)."""
        from rlaccel.programs.checkpoint import nest
        if not self._awaiting:
            return None
        arrays: dict = {}
        fields = {"updates": self.updates, "quantized_at": self.quantized_at,
                  "train_exchanges": self.train_exchanges,
                  "eval_exchanges": self.eval_exchanges, "wall": dict(self.wall),
                  "cpu": dict(self.cpu)}
        nest("host", self.host.checkpoint_state(), arrays, fields)
        nest("fixar", _family_state(agent), arrays, fields)
        return arrays, fields

    def restore(self, agent, saved) -> None:
        """Continue the run :meth:`checkpoint_state` saved; call after ``bind``, before the
        run."""
        self.updates = saved.get("updates", int, lo=0)
        self.quantized_at = saved.get("quantized_at", int, none=True, lo=0)
        self.train_exchanges = saved.get("train_exchanges", int, lo=0)
        self.eval_exchanges = saved.get("eval_exchanges", int, lo=0)
        for name in ("wall", "cpu"):
            times = saved.get(name, dict)
            mine = getattr(self, name)
            if set(times) != set(mine) or not all(type(v) is float for v in times.values()):
                raise saved.unfit(f"its {name} times are not {', '.join(mine)}")
            mine.update(times)
        self.host.restore(saved.part("host"))
        _restore_family(agent, saved.part("fixar"))
        self._restored = True

    # ---- the binary ----
    def bind(self, binary) -> None:
        sym = {s.name: s for s in binary.symbols}
        missing = [s for s in NEEDS if s not in sym]
        if missing:
            raise RlaccelError(f"{binary.origin}: the program has no symbol(s) "
                               f"{', '.join(missing)}, which the FIXAR host needs")
        S, A, B = self.S, self.A, self.cfg.batch
        want = {"ST": S, "BAT": B * (S + A), "NXT": B * (S + A), "RD": 2 * B, "OUTA": A,
                "WINIT": self.actor_net.size + self.critic_net.size, "HPC": 7, "HPA": 7}
        for name, n in want.items():
            if sym[name].length != n:
                raise RlaccelError(f"{binary.origin}: symbol {name} has {sym[name].length} "
                                   f"words; {self.cfg.env_id} with batch {B} and hidden "
                                   f"{list(self.cfg.hidden)} needs {n}")
        self.sym = sym
        self.base = sym["IN"].address
        self.init_base = sym["INIT"].address

    # ---- the link ----
    @property
    def finished(self) -> bool:
        return self._done

    def exchange(self, out: np.ndarray) -> np.ndarray:
        if self._gen is None:
            self._gen = self._script(np.asarray(out) if self._restored else None)
            return next(self._gen)
        return self._gen.send(np.asarray(out))

    def _put(self, reply, base, name, values) -> None:
        s = self.sym[name]
        a = s.address - base
        reply[a:a + s.length] = np.asarray(values, np.int64).reshape(-1)

    def _words(self, reply, name) -> np.ndarray:
        """The words of symbol ``name`` in the reply to a request (a view)."""
        s = self.sym[name]
        a = s.address - self.base
        return reply[a:a + s.length]

    def _q(self, x) -> np.ndarray:
        return self.acc.quantize(np.asarray(x, np.float64))

    def _init_reply(self) -> np.ndarray:
        cfg = self.cfg
        rng = np.random.default_rng([cfg.seed, 1])
        actor = self.w.quantize(init_params(self.actor_net, rng))
        critic = self.w.quantize(init_params(self.critic_net, rng))
        n = self.sym["SIGW"].address + 1 - self.init_base
        reply = np.zeros(n, np.int64)
        self._put(reply, self.init_base, "WINIT", np.concatenate([actor, critic]))
        seed = int(cfg.seed) & ((1 << 64) - 1)
        lo, hi = seed & 0xFFFFFFFF, seed >> 32
        self._put(reply, self.init_base, "SEEDW",
                  [w - (1 << 32) if w >= 1 << 31 else w for w in (lo, hi)])
        self._put(reply, self.init_base, "TAUW", [tau_raw(cfg.tau)])
        self._put(reply, self.init_base, "SIGW", self._q([cfg.noise_sigma]))
        return reply

    def _request(self, state, batch=None, freeze=False) -> np.ndarray:
        t0, c0 = time.perf_counter(), time.process_time()
        n = self.sym["HPA"].address + 7 - self.base
        reply = np.zeros(n, np.int64)
        if batch is None:
            self._put(reply, self.base, "ST", self._q(state))
            self._put(reply, self.base, "EVAL", [_ONE])
        else:
            t = self.updates + 1
            self._put(reply, self.base, "FREEZE", [_ONE if freeze else 0])
            S, A, B = self.S, self.A, self.cfg.batch
            # the state and the batch's values quantised in one call (elementwise, so the
            # same words as one call each), written into the symbols' words in place
            parts = (state, batch["s"], batch["a"], batch["s2"], batch["r"])
            q = self._q(np.concatenate([np.ravel(p) for p in parts]))
            i = S + B * S
            self._words(reply, "ST")[...] = q[:S]
            bat = self._words(reply, "BAT").reshape(B, S + A)
            bat[:, :S] = q[S:i].reshape(B, S)
            bat[:, S:] = q[i:i + B * A].reshape(B, A)
            i += B * A
            self._words(reply, "NXT").reshape(B, S + A)[:, :S] = q[i:i + B * S].reshape(B, S)
            rd = self._words(reply, "RD").reshape(B, 2)
            rd[:, 0] = q[i + B * S:]
            rd[:, 1] = np.where(np.asarray(batch["done"]) > 0, _ONE, 0)
            for name, hp in (("HPC", self.hp_critic), ("HPA", self.hp_actor)):
                self._put(reply, self.base, name, constants(t, hp).view(np.int32))
        self.timeline.add("packing", time.perf_counter() - t0)
        if batch is not None:
            self.cpu["packing"] += time.process_time() - c0
        return reply

    def _done_reply(self) -> np.ndarray:
        n = self.sym["HPA"].address + 7 - self.base
        reply = np.zeros(n, np.int64)
        self._put(reply, self.base, "DONE", [_ONE])
        self._done = True
        return reply

    def _action(self, out) -> np.ndarray:
        return self.acc.to_float(np.asarray(out, np.int64))

    def _script(self, answer=None):
        """Fig. 3's loop (the same order as host.train), one yield per exchange; ``answer``:
        a restored run's first exchange, the answer to the training request it was saved
        waiting for."""
        cfg, host, tl = self.cfg, self.host, self.timeline
        if answer is None:
            yield self._init_reply()
        else:
            yield from self._act(self._trained(answer))
        while host.t < cfg.steps:
            t0, c0 = time.perf_counter(), time.process_time()
            batch = host.batch()
            t1, c1 = time.perf_counter(), time.process_time()
            tl.add("replay sampling", t1 - t0)
            self.wall["sampling"] += t1 - t0
            self.cpu["sampling"] += c1 - c0
            if batch is None:
                action = host.random_action()
            else:
                freeze = (cfg.qat and self.quantized_at is None and host.t >= cfg.qat_delay)
                if freeze:
                    self.quantized_at = host.t
                self._awaiting = True
                out = yield self._request(host.state, batch, freeze)
                self._awaiting = False
                action = self._trained(out)
            yield from self._act(action)
        yield self._done_reply()

    def _trained(self, out) -> np.ndarray:
        """The exploring action the accelerator answered a training request with."""
        self.updates += 1
        self.train_exchanges += 1
        return self._action(out)

    def _act(self, action):
        """Step the environment with ``action``; evaluate when it is time (a generator: the
        evaluation's exchanges)."""
        cfg, host = self.cfg, self.host
        t2, c2 = time.perf_counter(), time.process_time()
        host.apply(action)
        dt = time.perf_counter() - t2
        self.timeline.add("environment", dt)
        self.wall["environment"] += dt
        self.cpu["environment"] += time.process_time() - c2
        if host.t % cfg.eval_every == 0:
            mean = yield from self._evaluate()
            self.progress_lines.append(f"step {host.t}: evaluation return {mean:.1f}")

    def _evaluate(self):
        """``host.evaluate`` with the accelerator's deterministic actor (one exchange per
        evaluation step)."""
        cfg, env = self.cfg, self.host.eval_env
        returns = []
        t_env = 0.0
        for k in range(cfg.eval_episodes):
            obs, _ = env.reset(seed=cfg.seed + EVAL_SEED_OFFSET + k)
            total, done = 0.0, False
            while not done:
                out = yield self._request(np.asarray(obs, np.float32))
                self.eval_exchanges += 1
                t0 = time.perf_counter()
                obs, r, term, trunc, _ = env.step(self.host.to_env(self._action(out)))
                t_env += time.perf_counter() - t0
                total += float(r)
                done = term or trunc
            returns.append(total)
        self.timeline.add("evaluation environment", t_env)
        self.wall["evaluation"] += t_env
        mean = float(np.mean(returns))
        self.host.evals.append((self.host.t, mean))
        return mean


# ---- the ddpg family's per-agent state in a checkpoint ----

def _family_state(agent) -> tuple[dict, dict]:
    """The QAT monitors and quantisers, the freeze step and the PRNG streams of
    ``agent.state["fixar"]`` (the prepared weight operands are a cache, left out)."""
    st = agent.state.get("fixar")
    if st is None:
        return {}, {"made": False}
    slots = sorted(st.monitors)
    arrays = {"monitor_slots": np.array(slots, np.int64),
              "monitor_range": np.array([[st.monitors[k].amin, st.monitors[k].amax]
                                         for k in slots], np.float64).reshape(-1, 2),
              "monitor_count": np.array([st.monitors[k].count for k in slots], np.int64)}
    qparams = None if st.qparams is None else [
        [k, p.bits, p.delta, p.zero, p.exponent] for k, p in sorted(st.qparams.items())]
    arrays["tally"] = np.array([[pc, int(h), n, c] for (pc, h), (n, c) in
                                sorted(st.tally.items())], np.int64).reshape(-1, 4)
    streams = {}
    for s, g in sorted(st.prng.items()):
        streams[str(s)] = {"seed": g.seed, "lanes": g.lanes, "cycles": g.cycles}
        arrays[f"prng.{s}"] = g.state()
    return arrays, {"made": True, "qparams": qparams, "frozen_at": st.frozen_at,
                    "prng": streams}


def _restore_family(agent, saved) -> None:
    """Put :func:`_family_state`'s state into the fresh agent's ``state["fixar"]``."""
    from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
    from rlaccel.machines.fixar.tlm.qat import QatParams, RangeMonitor
    from rlaccel.machines.fixar.tlm.state import state_of
    if not saved.get("made", bool):
        return
    st = state_of(agent)
    slots = saved.array("monitor_slots", np.int64, (None,))
    n = len(slots)
    ranges = saved.array("monitor_range", np.float64, (n, 2))
    counts = saved.array("monitor_count", np.int64, (n,))
    st.monitors = {}
    for k, (lo, hi), c in zip(slots.tolist(), ranges.tolist(), counts.tolist()):
        m = st.monitors[k] = RangeMonitor()
        m.amin, m.amax, m.count = lo, hi, c
    qp = saved.get("qparams", list, none=True)
    if qp is not None and not all(
            isinstance(q, list) and len(q) == 5 and type(q[0]) is int and q[0] in st.monitors
            and type(q[1]) is int and type(q[2]) is float and type(q[3]) is int
            and (q[4] is None or type(q[4]) is int) for q in qp):
        raise saved.unfit("its QAT quantisers are not (monitored slot, bits, delta, zero, "
                          "exponent)")
    st.qparams = None if qp is None else {
        k: QatParams(bits=b, delta=d, zero=z, exponent=e) for k, b, d, z, e in qp}
    st.frozen_at = saved.get("frozen_at", int, none=True, lo=0)
    if saved.where + "tally" in saved.arrays:            # (older checkpoints have none)
        st.tally = {(int(pc), bool(h)): [int(n), int(c)] for pc, h, n, c in
                    saved.array("tally", np.int64, (None, 4)).tolist()}
    st.prng = {}
    streams = saved.part("prng")
    for key in streams.fields:
        if not key.isdigit():
            raise saved.unfit(f"PRNG stream {key!r} is not a number")
        p, s = streams.part(key), int(key)
        gen = NoiseGenerator(p.get("seed", int), s, p.get("lanes", int, lo=1, hi=1 << 16))
        try:
            gen.restore(streams.array(key, np.uint32, gen.regs.shape))
        except RlaccelError as exc:
            raise saved.unfit(f"PRNG stream {s}: {exc}") from None
        gen.cycles = p.get("cycles", int, lo=0)
        st.prng[s] = gen
    st.weights.clear()                  # prepared operands of the fresh run's weights

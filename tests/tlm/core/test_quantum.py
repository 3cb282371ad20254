"""tlm.core.quantum: temporal decoupling yields once per quantum and loses no time."""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest
import simpy

from rlaccel.util.errors import SimError
from rlaccel.tlm.core import (DEFAULT_QUANTUM, AccessTiming, GenericPayload, InitiatorSocket, Memory,
                      QuantumKeeper, global_quantum, set_global_quantum)


def run_initiator(quantum: int, seed: int, n: int = 1000):
    """An initiator issuing ``n`` reads of random length to a memory of random timing, with a
    keeper of ``quantum``. Returns (env, keeper, sum of delays, env.now after each sync)."""
    rng = random.Random(seed)
    env = simpy.Environment()
    mem = Memory("m", 64, read=AccessTiming(rng.randint(0, 9), rng.randint(1, 5)))
    cpu = InitiatorSocket("cpu")
    cpu.bind(mem.socket)
    qk = QuantumKeeper(env, quantum)
    buf = np.zeros(8, dtype=np.int64)
    lengths = [rng.randint(1, 8) for _ in range(n)]
    total = sum(mem.read_timing.delay(k) for k in lengths)
    sync_times: list[int] = []

    def initiator():
        p = GenericPayload.read(0, 1, buf)
        for k in lengths:
            p.prepare(p.command, rng.randint(0, 56), k, buf)
            qk.local_time = cpu.b_transport(p, qk.local_time)
            if qk.need_sync():
                yield from qk.sync()
                sync_times.append(env.now)
        yield from qk.sync()

    env.process(initiator())
    env.run()
    return env, qk, total, sync_times


@pytest.mark.parametrize("quantum", [32, 100])
@pytest.mark.parametrize("seed", range(3))
def test_an_initiator_yields_at_most_once_per_quantum_and_loses_no_time(quantum, seed):
    """With a quantum of Q cycles the initiator yields to SimPy at most ceil(T/Q) + 1 times
    for T cycles of transactions (the last is its final sync), each sync crosses a new
    multiple of Q, and env.now ends at exactly the sum of the annotated delays."""
    env, qk, total, sync_times = run_initiator(quantum, seed)
    assert env.now == total
    assert qk.syncs <= math.ceil(total / quantum) + 1
    boundaries = [t // quantum for t in sync_times]
    assert all(a < b for a, b in zip(boundaries, boundaries[1:]))
    # and it does yield: at least once per quantum plus the longest transaction
    assert qk.syncs >= total // (quantum + 9 + 5 * 8)


def test_initiators_on_one_global_quantum_meet_at_its_boundaries():
    """Two initiators following the global quantum sync just after the same multiples of Q,
    so neither runs more than Q plus one transaction ahead of the other."""
    env = simpy.Environment()
    set_global_quantum(env, 50)
    now_at_sync: dict[str, list[int]] = {"a": [], "b": []}

    def initiator(name, step):
        qk = QuantumKeeper(env)
        for _ in range(200):
            qk.inc(step)
            if qk.need_sync():
                yield from qk.sync()
                now_at_sync[name].append(env.now)
        yield from qk.sync()

    env.process(initiator("a", 3))
    env.process(initiator("b", 7))
    env.run()
    assert env.now == 1400
    for a, b in zip(now_at_sync["a"], now_at_sync["b"]):
        assert a // 50 == b // 50


def test_a_long_transaction_is_one_sync_of_its_full_length():
    """A delay longer than the quantum is not cut or lost: one sync of all of it."""
    env = simpy.Environment()
    qk = QuantumKeeper(env, 10)
    qk.inc(55)
    assert qk.need_sync() and qk.current_time == 55

    def proc():
        yield from qk.sync()

    env.process(proc())
    env.run()
    assert (env.now, qk.local_time, qk.syncs) == (55, 0, 1)
    qk.inc(4)                                    # next boundary is 60
    assert not qk.need_sync()
    qk.inc(1)
    assert qk.need_sync()


def test_sync_without_local_time_does_not_yield():
    """sync() with nothing to wait for costs no SimPy event."""
    env = simpy.Environment()
    qk = QuantumKeeper(env, 10)
    log = []

    def proc():
        yield from qk.sync()
        log.append(env.now)

    env.process(proc())
    env.run()
    assert log == [0] and qk.syncs == 0


def test_wait_syncs_first_then_waits_and_starts_a_new_quantum():
    """wait(event) spends the local time, waits for the event, returns its value and resets
    the keeper to the quantum after the new env.now."""
    env = simpy.Environment()
    qk = QuantumKeeper(env, 16)
    host = env.event()
    got = []

    def cpu():
        qk.inc(7)
        value = yield from qk.wait(host)
        got.append((env.now, value, qk.local_time, qk.syncs))
        qk.inc(11)                      # 20 + 11 = 31 < 32
        got.append(qk.need_sync())
        qk.inc(1)
        got.append(qk.need_sync())

    def link():
        yield env.timeout(20)
        host.succeed("obs")

    env.process(cpu())
    env.process(link())
    env.run()
    assert got == [(20, "obs", 0, 1), False, True]


def test_global_quantum_belongs_to_one_simulation():
    """The global quantum is per environment (DEFAULT_QUANTUM until set); a keeper without its
    own quantum follows it from its next reset; a keeper's own quantum wins."""
    env, other = simpy.Environment(), simpy.Environment()
    assert global_quantum(env) == DEFAULT_QUANTUM == 1000
    follower, own = QuantumKeeper(env), QuantumKeeper(env, 7)
    set_global_quantum(env, 20)
    assert global_quantum(env) == 20 and global_quantum(other) == DEFAULT_QUANTUM
    assert follower.quantum == 20 and own.quantum == 7
    follower.inc(20)
    assert not follower.need_sync()             # still aiming at 1000 until reset
    follower.reset()
    follower.inc(20)
    assert follower.need_sync()
    own.quantum = None
    assert own.quantum == 20


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "32"])
def test_a_quantum_is_a_positive_integer(bad):
    """Quantum values are checked with the message "must be X, not Y"."""
    msg = f"quantum must be a positive integer number of cycles, not {bad!r}"
    with pytest.raises(SimError, match=f"^{re.escape(msg)}$"):
        QuantumKeeper(simpy.Environment(), bad)
    with pytest.raises(SimError, match=f"^{re.escape(msg)}$"):
        set_global_quantum(simpy.Environment(), bad)

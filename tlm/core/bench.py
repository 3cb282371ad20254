"""Speed of the core's hot paths: ``python -m tlm.core.bench [-n N] [--repeat R]``.

Prints, for each path, the best rate over ``R`` runs of ``N`` operations. Absolute figures
drift from run to run (see /work/shared/reference/speeds.md); compare ratios.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import numpy as np
import simpy

from rlaccel.tlm.core.memory import Memory
from rlaccel.tlm.core.payload import Command, GenericPayload
from rlaccel.tlm.core.quantum import QuantumKeeper
from rlaccel.tlm.core.router import Router
from rlaccel.tlm.core.sockets import InitiatorSocket


def _system() -> tuple[Memory, InitiatorSocket, InitiatorSocket]:
    """A memory behind a direct socket and, at 0x1000, behind a router."""
    mem = Memory("nmem", 4096)
    mem.data[:] = np.arange(4096)
    direct = InitiatorSocket("bench.direct")
    direct.bind(mem.socket)
    router = Router("bus")
    router.map(0x10000, mem.socket)
    routed = InitiatorSocket("bench.routed")
    routed.bind(router.socket)
    return mem, direct, routed


def bench_transport(n: int, words: int = 1, routed: bool = False) -> float:
    """Reads of ``words`` words by b_transport, one reused payload; returns seconds."""
    _, direct, via_router = _system()
    socket = via_router if routed else direct
    base = 0x10000 if routed else 0
    buf = np.empty(words, dtype=np.int64)
    payload = GenericPayload(Command.READ, 0, words, buf)
    transport = socket.b_transport
    delay = 0
    t0 = time.perf_counter()
    for i in range(n):
        payload.address = base + (i & 1023)
        delay = transport(payload, delay)
    return time.perf_counter() - t0


def bench_dmi_word(n: int) -> float:
    """One-word reads through a DMI region (index, int), counted once at the end."""
    _, direct, _ = _system()
    region = direct.get_direct_mem_ptr(GenericPayload(Command.READ, 0, 1))
    data, start, total = region.data, region.start, 0
    t0 = time.perf_counter()
    for i in range(n):
        total += int(data[(i & 1023) - start])
    region.count(reads=n, words_read=n)
    return time.perf_counter() - t0


def bench_dmi_view(n: int, words: int = 8) -> float:
    """Reads of ``words`` words as views of a DMI region, delay and stats per read."""
    _, direct, _ = _system()
    region = direct.get_direct_mem_ptr(GenericPayload(Command.READ, 0, 1))
    view, count, delay = region.view, region.count, 0
    per_read = region.read_delay(words)
    t0 = time.perf_counter()
    for i in range(n):
        view(i & 1023, words)
        delay += per_read
    count(reads=n, words_read=n * words)
    return time.perf_counter() - t0


def bench_keeper(n: int, quantum: int, transport: bool = False) -> tuple[float, int]:
    """A SimPy process of ``n`` one-cycle steps (or 1-word transactions) under a keeper."""
    env = simpy.Environment()
    _, direct, _ = _system()
    payload = GenericPayload(Command.READ, 0, 1, np.empty(1, dtype=np.int64))
    qk = QuantumKeeper(env, quantum)

    def steps():
        for _ in range(n):
            qk.local_time += 1
            if qk.need_sync():
                yield from qk.sync()
        yield from qk.sync()

    def transactions():
        b_transport = direct.b_transport
        for i in range(n):
            payload.address = i & 1023
            qk.local_time = b_transport(payload, qk.local_time)
            if qk.need_sync():
                yield from qk.sync()
        yield from qk.sync()

    env.process(transactions() if transport else steps())
    t0 = time.perf_counter()
    env.run()
    return time.perf_counter() - t0, qk.syncs


def bench_simpy_event(n: int) -> float:
    """Reference: one SimPy timeout per 1-word transaction (no temporal decoupling)."""
    env = simpy.Environment()
    _, direct, _ = _system()
    payload = GenericPayload(Command.READ, 0, 1, np.empty(1, dtype=np.int64))

    def proc():
        b_transport = direct.b_transport
        for i in range(n):
            payload.address = i & 1023
            yield env.timeout(b_transport(payload, 0))

    env.process(proc())
    t0 = time.perf_counter()
    env.run()
    return time.perf_counter() - t0


def _best(run: Callable[[], float], repeat: int) -> float:
    return min(run() for _ in range(repeat))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tlm.core.bench", description=__doc__)
    parser.add_argument("-n", type=int, default=200_000, help="operations per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = parser.parse_args(argv)
    n, r = args.n, args.repeat
    rows: list[tuple[str, float, str]] = [
        ("b_transport read 1 word", n / _best(lambda: bench_transport(n), r), "tx/s"),
        ("b_transport read 8 words", n / _best(lambda: bench_transport(n, 8), r), "tx/s"),
        ("b_transport 1 word via router", n / _best(lambda: bench_transport(n, routed=True), r),
         "tx/s"),
        ("DMI read 1 word (index)", n / _best(lambda: bench_dmi_word(n), r), "reads/s"),
        ("DMI read 8 words (view)", n / _best(lambda: bench_dmi_view(n), r), "reads/s"),
        ("SimPy event per transaction", n / _best(lambda: bench_simpy_event(n), r), "tx/s"),
    ]
    for q in (32, 1000):
        t, syncs = min(bench_keeper(n, q) for _ in range(r))
        rows.append((f"keeper steps, Q={q} ({syncs} yields)", n / t, "steps/s"))
        t, syncs = min(bench_keeper(n, q, transport=True) for _ in range(r))
        rows.append((f"keeper + b_transport, Q={q} ({syncs} yields)", n / t, "tx/s"))
    width = max(len(name) for name, _, _ in rows)
    print(f"tlm.core hot paths, best of {r} runs of {n:,} operations")
    for name, rate, unit in rows:
        print(f"  {name:<{width}}  {rate:>12,.0f} {unit}")


if __name__ == "__main__":
    main()

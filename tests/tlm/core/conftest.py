"""Shared wiring for the tlm.core tests.

Behaviour tests run on two paths to the same memory (STYLE 9): ``direct`` (initiator socket
bound to the memory) and ``router`` (the memory mapped at ``BASE`` behind a router that adds
``HOP`` cycles per access, next to another memory).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import simpy

from rlaccel.tlm.core import AccessTiming, InitiatorSocket, Memory, Router

BASE = 0x1000          # where the router maps the memory under test
HOP = 2                # cycles the router adds per access
SIZE = 256             # words of the memory under test
READ = AccessTiming(latency=3, per_beat=2, width=1)
WRITE = AccessTiming(latency=1, per_beat=1, width=4)
PATHS = ("direct", "router")


@dataclass
class Path:
    """An initiator socket reaching ``memory``, whose word 0 is at ``base``."""

    name: str
    socket: InitiatorSocket
    memory: Memory
    base: int
    hop: int
    router: Router | None = None


def build(path: str, **memory_options) -> Path:
    """Wire a fresh memory ``nmem`` on ``path`` ('direct' or 'router')."""
    options = dict(read=READ, write=WRITE, read_energy_pj=1.5, write_energy_pj=2.25)
    options.update(memory_options)
    memory = Memory("nmem", SIZE, **options)
    socket = InitiatorSocket("cpu.mem")
    if path == "direct":
        socket.bind(memory.socket)
        return Path(path, socket, memory, 0, 0)
    router = Router("bus", latency=HOP)
    router.map(0, Memory("other", 64).socket)
    router.map(BASE, memory.socket)
    socket.bind(router.socket)
    return Path(path, socket, memory, BASE, HOP, router)


@pytest.fixture(params=PATHS)
def path(request) -> Path:
    """The memory under test, reached directly or through a router."""
    return build(request.param)


@pytest.fixture
def env() -> simpy.Environment:
    return simpy.Environment()

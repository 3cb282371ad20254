"""tlm.core.sockets and tlm.core.router: binding, annotated delays, address decoding."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlaccel.util.errors import ArchError, SimError
from rlaccel.tlm.core import (AccessTiming, Command, DmiRegion, GenericPayload, InitiatorSocket,
                      Memory, Router, Status, Target, TargetSocket)

from tests.tlm.core.conftest import BASE, PATHS, READ, SIZE, WRITE, build


class Recorder(Target):
    """A target that records what it is asked and answers OK after ``latency`` cycles."""

    def __init__(self, name: str = "rec", latency: int = 5, size: int | None = 100):
        self.name, self.latency, self.seen = name, latency, []
        if size is not None:
            self.size = size
        self.socket = TargetSocket(f"{name}.socket", self)

    def b_transport(self, payload, delay):
        self.seen.append((payload.command, payload.address, payload.length,
                          payload.extensions))
        payload.status = Status.OK
        return delay + self.latency


# --------------------------------------------------------------------------- annotated delay
@pytest.mark.parametrize("name", PATHS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_delay_a_target_annotates_is_the_delay_the_initiator_sees(name, data):
    """b_transport returns the incoming delay plus the target's access time (latency + cost
    per beat), plus the router's hop: nothing is added or lost on the way."""
    p = build(name)
    length = data.draw(st.integers(1, 16), label="length")
    offset = data.draw(st.integers(0, SIZE - length), label="offset")
    before = data.draw(st.integers(0, 10_000), label="incoming delay")
    buf = np.arange(length, dtype=np.int64)
    d = p.socket.b_transport(GenericPayload.write(p.base + offset, buf), before)
    assert d == before + p.hop + 1 + 1 * -(-length // 4)            # WRITE: 1 + 1/beat of 4
    d = p.socket.b_transport(GenericPayload.read(p.base + offset, length, buf), before)
    assert d == before + p.hop + 3 + 2 * length                      # READ: 3 + 2/word
    assert d == before + p.hop + READ.delay(length)
    assert WRITE.delay(length) == 1 + -(-length // 4)


def test_after_bind_the_socket_call_is_the_targets_own_method():
    """Binding replaces the socket's methods by the target's: one Python call, no SimPy."""
    mem = Memory("m", 8)
    s = InitiatorSocket("cpu.mem")
    s.bind(mem.socket)
    assert s.b_transport == mem.b_transport
    assert s.get_direct_mem_ptr == mem.get_direct_mem_ptr
    assert s.transport_dbg == mem.transport_dbg
    assert s.bound and s.target_socket is mem.socket and mem.socket.initiators == [s]


def test_target_socket_bind_is_the_same_as_initiator_bind():
    """Wiring can be written from either end."""
    mem = Memory("m", 8)
    s = InitiatorSocket("cpu.mem")
    mem.socket.bind(s)
    assert s.target_socket is mem.socket


# --------------------------------------------------------------------------- wiring errors
def test_an_unbound_socket_says_so():
    """Using a socket before binding it raises SimError naming the socket."""
    s = InitiatorSocket("cpu.mem")
    msg = "initiator socket 'cpu.mem' is not bound to a target"
    for call in (lambda: s.b_transport(GenericPayload(), 0),
                 lambda: s.get_direct_mem_ptr(GenericPayload()),
                 lambda: s.transport_dbg(GenericPayload())):
        with pytest.raises(SimError, match=f"^{re.escape(msg)}$"):
            call()


def test_an_initiator_socket_binds_once():
    """Binding a bound socket again is an ArchError naming both targets."""
    s = InitiatorSocket("cpu.mem")
    s.bind(Memory("a", 4).socket)
    with pytest.raises(ArchError, match=re.escape(
            "initiator socket 'cpu.mem' is already bound to 'a.socket'; "
            "cannot bind it to 'b.socket'")):
        s.bind(Memory("b", 4).socket)


def test_sockets_check_what_they_are_given():
    """A socket binds to a TargetSocket; a TargetSocket serves a Target."""
    with pytest.raises(TypeError, match="^initiator socket 'cpu' must bind to a TargetSocket, "
                                        "not Memory$"):
        InitiatorSocket("cpu").bind(Memory("m", 4))
    with pytest.raises(TypeError, match="^target of socket 'x' must be a tlm.core.Target, "
                                        "not int$"):
        TargetSocket("x", 3)


def test_default_target_refuses_dmi_and_debug():
    """A Target that only implements b_transport refuses DMI and debug transport."""
    rec = Recorder()
    p = GenericPayload.read(0)
    p.dmi_allowed = True
    assert rec.get_direct_mem_ptr(p) is None and p.dmi_allowed is False
    assert rec.transport_dbg(p) == 0
    assert p.status is Status.COMMAND_ERROR and p.error_message() == "rec: no debug access"


# --------------------------------------------------------------------------- router
def wired_router(latency: int = 0):
    router = Router("bus", latency=latency)
    low, high = Recorder("low"), Recorder("high", latency=7)
    router.map(0, low.socket)
    router.map(0x200, high.socket, size=0x40)
    cpu = InitiatorSocket("cpu.bus")
    cpu.bind(router.socket)
    return router, low, high, cpu


def test_router_subtracts_the_base_and_restores_the_address():
    """The target sees its own address; the initiator's payload is unchanged on return.
    Extensions travel with the payload."""
    router, low, high, cpu = wired_router(latency=1)
    p = GenericPayload.read(0x210, 4)
    p.extensions = {"unit": "bp"}
    assert cpu.b_transport(p, 10) == 10 + 1 + 7
    assert high.seen == [(Command.READ, 0x10, 4, {"unit": "bp"})] and low.seen == []
    assert p.address == 0x210 and p.is_ok()
    assert router.address_map == [(0, 100, "low"), (0x200, 0x240, "high")]


@pytest.mark.parametrize("address, length, message", [
    (0x100, 1, "router 'bus': no target at address 0x100 (map: 'low' 0x0..0x63, "
               "'high' 0x200..0x23f)"),
    (0x240, 1, "router 'bus': no target at address 0x240 (map: 'low' 0x0..0x63, "
               "'high' 0x200..0x23f)"),
    (-1, 1, "router 'bus': no target at address -0x1 (map: 'low' 0x0..0x63, "
            "'high' 0x200..0x23f)"),
    (0x60, 8, "router 'bus': read of words 0x60..0x67 runs past the end of 'low' (0x0..0x63)"),
])
def test_router_unmapped_addresses_get_address_error(address, length, message):
    """An address no target holds, or a transaction running past its target's end, gets
    ADDRESS_ERROR with a message naming the router and its map; no target is called and no
    time passes."""
    _, low, high, cpu = wired_router(latency=3)
    p = GenericPayload.read(address, length)
    assert cpu.b_transport(p, 42) == 42
    assert p.status is Status.ADDRESS_ERROR and p.error_message() == message
    assert low.seen == [] and high.seen == []
    with pytest.raises(SimError, match=f"^{re.escape(message)}$"):
        p.raise_for_status()
    q = GenericPayload.read(address, length)
    assert cpu.transport_dbg(q) == 0 and q.error_message() == message


def test_router_map_errors():
    """Overlapping ranges, a size larger than the target and a target without size are
    ArchErrors naming the router and the targets."""
    router, *_ = wired_router()
    with pytest.raises(ArchError, match=re.escape(
            "router 'bus': 'x' at 0x230..0x24f overlaps 'high' at 0x200..0x23f")):
        router.map(0x230, Recorder("x").socket, size=0x20)
    with pytest.raises(ArchError, match=re.escape(
            "router 'bus': 'y' has 100 words, cannot map 101")):
        router.map(0x1000, Recorder("y").socket, size=101)
    with pytest.raises(ArchError, match=re.escape(
            "router 'bus': give the size of 'z', its target has no size")):
        router.map(0x1000, Recorder("z", size=None).socket)
    with pytest.raises(ArchError, match=re.escape(
            "router 'bus': cannot map 'w' at 0x1000 with 0 words")):
        router.map(0x1000, Recorder("w").socket, size=0)


def test_router_debug_transport_forwards_without_time_or_statistics():
    """transport_dbg through a router reaches the mapped memory, translated, uncounted."""
    p = build("router")
    p.memory.data[5:8] = [7, 8, 9]
    q = GenericPayload.read(BASE + 5, 3, np.zeros(3, dtype=np.int64))
    assert p.socket.transport_dbg(q) == 3 and q.is_ok() and q.address == BASE + 5
    assert q.data.tolist() == [7, 8, 9]
    assert p.memory.stats.words == 0


def test_router_without_dmi_target_returns_none():
    """DMI through a router to a target that refuses it, or to an unmapped address, is None."""
    _, _, _, cpu = wired_router()
    assert cpu.get_direct_mem_ptr(GenericPayload.read(0x210)) is None
    assert cpu.get_direct_mem_ptr(GenericPayload.read(0x100)) is None


def test_router_translates_dmi_regions_and_adds_its_hop():
    """A DMI region through a router is in the initiator's addresses, clipped to the mapped
    range, and its timing includes the router's latency."""
    mem = Memory("m", 100, read=AccessTiming(2, 1), write=AccessTiming(1, 1))
    router = Router("bus", latency=3)
    router.map(0x400, mem.socket, size=50)      # only the first 50 words are visible
    cpu = InitiatorSocket("cpu")
    cpu.bind(router.socket)
    region = cpu.get_direct_mem_ptr(GenericPayload.read(0x410))
    assert isinstance(region, DmiRegion)
    assert (region.start, region.end, len(region.data)) == (0x400, 0x432, 50)
    assert region.read_delay(4) == 3 + 2 + 4 and region.write_delay(4) == 3 + 1 + 4
    mem.data[0x10] = 99
    assert region.data[0x410 - region.start] == 99

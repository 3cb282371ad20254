"""tlm.core.dmi: direct access sees what transactions see, with the same timing, until the
target withdraws it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlaccel.tlm.core import (AccessTiming, Command, DmiCache, DmiRegion, GenericPayload,
                      InitiatorSocket, Memory, Router)

from tests.tlm.core.conftest import BASE, PATHS, SIZE, build

words = st.integers(-(2**40), 2**40)
writes = st.lists(st.tuples(st.integers(0, SIZE - 1), st.lists(words, min_size=1, max_size=8)),
                  max_size=20)


def dmi(p, command=Command.READ) -> DmiRegion:
    region = p.socket.get_direct_mem_ptr(GenericPayload(command, p.base, 1))
    assert region is not None
    return region


@pytest.mark.parametrize("name", PATHS)
@settings(max_examples=40, deadline=None)
@given(ops=writes)
def test_dmi_reads_see_what_transactions_wrote(name, ops):
    """Words written by b_transport are the words a DMI region holds, at the same addresses."""
    p = build(name)
    region = dmi(p)
    expected = np.zeros(SIZE, dtype=np.int64)
    for offset, values in ops:
        values = values[:SIZE - offset]
        payload = GenericPayload.write(p.base + offset, np.array(values, dtype=np.int64))
        p.socket.b_transport(payload, 0)
        assert payload.is_ok()
        expected[offset:offset + len(values)] = values
    for a in range(region.start, region.end):
        assert region.data[a - region.start] == expected[a - p.base]
    assert region.view(p.base, SIZE).tolist() == expected.tolist()


@pytest.mark.parametrize("name", PATHS)
@settings(max_examples=40, deadline=None)
@given(ops=writes)
def test_transactions_read_what_dmi_wrote(name, ops):
    """Words written through a DMI region are the words b_transport reads back."""
    p = build(name)
    region = dmi(p, Command.WRITE)
    expected = np.zeros(SIZE, dtype=np.int64)
    for offset, values in ops:
        values = values[:SIZE - offset]
        region.view(p.base + offset, len(values))[:] = values
        expected[offset:offset + len(values)] = values
    buf = np.empty(SIZE, dtype=np.int64)
    for offset in range(0, SIZE, 16):
        payload = GenericPayload.read(p.base + offset, 16, buf)
        p.socket.b_transport(payload, 0)
        assert payload.is_ok() and buf[:16].tolist() == expected[offset:offset + 16].tolist()


@pytest.mark.parametrize("name", PATHS)
@pytest.mark.parametrize("length", [1, 3, 4, 5, 16])
def test_dmi_timing_is_the_timing_transport_would_annotate(name, length):
    """region.read_delay(n)/write_delay(n) equal the delay b_transport adds for n words."""
    p = build(name)
    region = dmi(p)
    buf = np.zeros(length, dtype=np.int64)
    assert region.read_delay(length) == p.socket.b_transport(
        GenericPayload.read(p.base, length, buf), 0)
    assert region.write_delay(length) == p.socket.b_transport(
        GenericPayload.write(p.base, buf), 0)


def test_memory_grants_its_whole_array_and_the_hint_says_so(path):
    """A memory grants DMI on its whole range; b_transport sets the dmi_allowed hint."""
    region = dmi(path)
    assert (region.start, region.end) == (path.base, path.base + SIZE)
    assert region.read_allowed and region.write_allowed and region.valid
    assert region.owner == "nmem" and region.contains(path.base + SIZE - 4, 4)
    assert not region.contains(path.base + SIZE - 3, 4)
    payload = GenericPayload.read(path.base, 1, np.zeros(1, dtype=np.int64))
    path.socket.b_transport(payload, 0)
    assert payload.dmi_allowed


def test_read_only_memory_grants_read_only_dmi():
    """A read-only memory refuses DMI for writes and hands out a view numpy won't write."""
    rom = Memory("imem", 16, read_only=True)
    cpu = InitiatorSocket("cpu")
    cpu.bind(rom.socket)
    assert cpu.get_direct_mem_ptr(GenericPayload(Command.WRITE, 0, 1)) is None
    region = cpu.get_direct_mem_ptr(GenericPayload.read(0))
    assert region.read_allowed and not region.write_allowed
    assert region.allows(Command.READ) and not region.allows(Command.WRITE)
    with pytest.raises(ValueError):
        region.data[0] = 1


def test_withdrawing_dmi_invalidates_regions_on_every_path():
    """set_dmi(False) calls the initiators back with the withdrawn range in their own
    addresses (through a router: shifted by its base); later requests are refused."""
    mem = Memory("nmem", SIZE)
    direct_calls, routed_calls = [], []
    direct = InitiatorSocket("dma", on_invalidate=lambda s, e: direct_calls.append((s, e)))
    direct.bind(mem.socket)
    router = Router("bus")
    router.map(BASE, mem.socket)
    routed = InitiatorSocket("cpu", on_invalidate=lambda s, e: routed_calls.append((s, e)))
    routed.bind(router.socket)
    mem.set_dmi(False)
    assert direct_calls == [(0, SIZE)] and routed_calls == [(BASE, BASE + SIZE)]
    assert not mem.dmi_enabled
    assert routed.get_direct_mem_ptr(GenericPayload.read(BASE)) is None
    payload = GenericPayload.read(BASE, 1, np.zeros(1, dtype=np.int64))
    routed.b_transport(payload, 0)
    assert payload.is_ok() and not payload.dmi_allowed
    mem.set_dmi(True)
    assert routed.get_direct_mem_ptr(GenericPayload.read(BASE)) is not None


def test_dmi_cache_holds_regions_until_invalidated(path):
    """A DmiCache asks the target once per region, answers later lookups itself, and drops
    (and marks invalid) the regions a withdrawal overlaps."""
    cache = DmiCache(path.socket)
    asked = []
    real = path.socket.get_direct_mem_ptr
    path.socket.get_direct_mem_ptr = lambda payload: asked.append(payload.address) or real(
        payload)
    region = cache.get(path.base + 3)
    assert region is cache.get(path.base + 100, Command.WRITE, 8)
    assert asked == [path.base + 3]
    assert cache.get(path.base + SIZE) is None           # outside every target
    path.memory.set_dmi(False)
    assert not region.valid and cache.regions == []
    assert cache.get(path.base) is None


def test_a_region_translates_and_clips():
    """translated(offset, low, high, latency) shifts the range, slices the data to match and
    adds latency; nothing left gives None."""
    data = np.arange(10)
    region = DmiRegion(0, 10, data, AccessTiming(1, 1), AccessTiming(2, 1))
    moved = region.translated(100, 103, 108, latency=5)
    assert (moved.start, moved.end) == (103, 108)
    assert moved.view(103, 5).tolist() == [3, 4, 5, 6, 7]
    assert moved.read_delay(2) == 5 + 1 + 2 and moved.write_delay(2) == 5 + 2 + 2
    assert region.translated(100, 200, 300) is None
    moved.view(104, 1)[:] = -1
    assert data[4] == -1                                  # a view, never a copy

"""tlm.core.memory: the reference memory target, its errors, statistics and energy."""

from __future__ import annotations

import re

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.tlm.core import AccessTiming, Command, GenericPayload, InitiatorSocket, Memory, Status

from tests.tlm.core.conftest import SIZE, build


def bound(memory: Memory) -> InitiatorSocket:
    s = InitiatorSocket("cpu")
    s.bind(memory.socket)
    return s


def test_a_read_fills_the_initiators_buffer_in_place(path):
    """b_transport copies into the payload's buffer (the same array object), never returns
    a view of the storage; a read without a buffer gets its own copy."""
    path.memory.data[10:14] = [1, 2, 3, 4]
    buf = np.zeros(8, dtype=np.int64)
    p = GenericPayload.read(path.base + 10, 4, buf)
    path.socket.b_transport(p, 0)
    assert p.data is buf and buf.tolist() == [1, 2, 3, 4, 0, 0, 0, 0]
    one = GenericPayload.read(path.base + 11, 1, buf)
    path.socket.b_transport(one, 0)
    assert buf[0] == 2
    fresh = GenericPayload.read(path.base + 10, 2)
    path.socket.b_transport(fresh, 0)
    assert fresh.data.tolist() == [1, 2] and not np.shares_memory(fresh.data, path.memory.data)


def test_a_write_takes_length_words_of_the_buffer(path):
    """A write stores data[:length] (single words too) and nothing else."""
    path.socket.b_transport(GenericPayload.write(path.base + 4, np.array([5, 6, 7]), 2), 0)
    path.socket.b_transport(GenericPayload.write(path.base + 9, np.array([8])), 0)
    assert path.memory.data[3:11].tolist() == [0, 5, 6, 0, 0, 0, 8, 0]


@pytest.mark.parametrize("address, length, command, message", [
    (SIZE, 1, Command.READ, "memory 'nmem' has 256 words (0x0..0xff): cannot read word 0x100"),
    (SIZE - 2, 4, Command.WRITE,
     "memory 'nmem' has 256 words (0x0..0xff): cannot write words 0xfe..0x101"),
    (-1, 1, Command.READ, "memory 'nmem' has 256 words (0x0..0xff): cannot read word -0x1"),
    (3, -1, Command.READ,
     "memory 'nmem' has 256 words (0x0..0xff): cannot read -1 words at 0x3"),
])
def test_out_of_range_access_is_an_address_error_naming_memory_words_and_size(
        address, length, command, message):
    """Out of range: ADDRESS_ERROR, no time, no data moved, nothing counted; check_range
    raises the same message as a SimError."""
    p = build("direct")
    before = p.memory.data.copy()
    payload = GenericPayload(command, address, length, np.ones(4, dtype=np.int64))
    assert p.socket.b_transport(payload, 17) == 17
    assert payload.status is Status.ADDRESS_ERROR and payload.error_message() == message
    assert (p.memory.data == before).all() and p.memory.stats.as_dict()["words"] == 0
    with pytest.raises(SimError, match=f"^{re.escape(message)}$"):
        p.memory.check_range(address, length, command)
    dbg = GenericPayload(command, address, length, np.ones(4, dtype=np.int64))
    assert p.socket.transport_dbg(dbg) == 0 and dbg.error_message() == message


def test_check_range_accepts_every_word_inside():
    """check_range is silent for accesses inside the memory, up to its last word."""
    mem = Memory("buf", 8)
    mem.check_range(0, 8)
    mem.check_range(7)
    mem.check_range(8, 0)


def test_read_only_memory_refuses_transported_writes_but_not_debug_writes():
    """Writing a read-only memory is a COMMAND_ERROR; a loader's debug write fills it."""
    rom = Memory("imem", 8, read_only=True)
    s = bound(rom)
    p = GenericPayload.write(2, np.array([1, 2]))
    assert s.b_transport(p, 0) == 0
    assert p.status is Status.COMMAND_ERROR
    assert p.error_message() == "memory 'imem': cannot write words 0x2..0x3: it is read-only"
    assert s.transport_dbg(GenericPayload.write(2, np.array([1, 2]))) == 2
    assert rom.data[2:4].tolist() == [1, 2] and rom.stats.words == 0


def test_ignore_is_ok_and_costs_nothing(path):
    """IGNORE completes OK with no time, no statistics."""
    p = GenericPayload(Command.IGNORE, path.base, 4)
    assert path.socket.b_transport(p, 5) == 5 + path.hop
    assert p.is_ok() and path.memory.stats.as_dict()["reads"] == 0
    assert path.socket.transport_dbg(GenericPayload(Command.IGNORE, path.base, 4)) == 0


def test_statistics_count_accesses_words_and_energy_on_both_paths(path):
    """Transport counts accesses and words; DMI users add theirs with region.count; debug
    transport counts nothing; energy is words times the per-word energy."""
    buf = np.zeros(16, dtype=np.int64)
    s, st = path.socket, path.memory.stats
    s.b_transport(GenericPayload.read(path.base, 4, buf), 0)
    s.b_transport(GenericPayload.read(path.base + 8, 1, buf), 0)
    s.b_transport(GenericPayload.write(path.base, buf, 16), 0)
    s.transport_dbg(GenericPayload.read(path.base, 16, buf))
    s.transport_dbg(GenericPayload.write(path.base, buf, 16))
    region = s.get_direct_mem_ptr(GenericPayload.read(path.base))
    region.count(reads=2, words_read=10)
    region.count(writes=1, words_written=3)
    assert st.as_dict() == {"reads": 4, "writes": 2, "words_read": 15, "words_written": 19,
                            "words": 34, "energy_pj": 15 * 1.5 + 19 * 2.25}
    st.reset()
    assert st.as_dict()["energy_pj"] == 0 and st.words == 0


def test_dtype_and_timing_are_the_memorys_own():
    """A float64 memory stores floats; the access time follows its AccessTiming
    (latency + per_beat * ceil(words / width))."""
    mem = Memory("acc", 32, np.float64, read=AccessTiming(latency=2, per_beat=3, width=4))
    s = bound(mem)
    s.b_transport(GenericPayload.write(0, np.array([0.25, -1.5])), 0)
    buf = np.zeros(5)
    assert s.b_transport(GenericPayload.read(0, 5, buf), 0) == 2 + 3 * 2
    assert buf[:2].tolist() == [0.25, -1.5] and mem.data.dtype == np.float64
    assert Memory("n", 4).data.dtype == np.int64


@pytest.mark.parametrize("make, message", [
    (lambda: Memory("m", 0), "memory 'm': size must be a positive number of words, not 0"),
    (lambda: Memory("m", 2.0), "memory 'm': size must be a positive number of words, not 2.0"),
    (lambda: AccessTiming(latency=-1),
     "access timing: latency must be an integer >= 0, not -1"),
    (lambda: AccessTiming(width=0), "access timing: width must be an integer >= 1, not 0"),
])
def test_construction_errors_say_what_is_expected(make, message):
    """Bad sizes and timings raise SimError with "must be X, not Y"."""
    with pytest.raises(SimError, match=f"^{re.escape(message)}$"):
        make()

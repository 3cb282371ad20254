"""tlm.core.payload: the generic payload and its error messages."""

from __future__ import annotations

import re

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.tlm.core import Command, GenericPayload, Status


def test_new_payload_is_incomplete_and_carries_no_extensions():
    """A payload starts INCOMPLETE, without DMI hint, extensions or detail."""
    p = GenericPayload()
    assert p.status is Status.INCOMPLETE and not p.is_ok()
    assert (p.command, p.address, p.length, p.data) == (Command.IGNORE, 0, 0, None)
    assert p.dmi_allowed is False and p.extensions is None and p.detail == ""


def test_payload_has_slots():
    """The payload is a slotted dataclass: no per-instance dict on the hot path."""
    assert not hasattr(GenericPayload(), "__dict__")
    with pytest.raises(AttributeError):
        GenericPayload().colour = "red"


def test_constructors_keep_the_callers_buffer():
    """read()/write() store the initiator's buffer itself; write() takes its length."""
    buf = np.arange(5)
    w = GenericPayload.write(7, buf)
    assert (w.command, w.address, w.length) == (Command.WRITE, 7, 5) and w.data is buf
    assert GenericPayload.write(7, buf, length=2).length == 2
    r = GenericPayload.read(3, 4, buf)
    assert (r.command, r.address, r.length) == (Command.READ, 3, 4) and r.data is buf


def test_prepare_sets_the_request_and_clears_the_answer():
    """prepare() reuses a payload: new request, status INCOMPLETE, no hint, no detail."""
    p = GenericPayload.read(1)
    p.status, p.dmi_allowed, p.detail = Status.ADDRESS_ERROR, True, "boom"
    p.extensions = {"unit": "ff"}
    buf = np.zeros(2)
    assert p.prepare(Command.WRITE, 9, 2, buf) is p
    assert (p.command, p.address, p.length, p.data) == (Command.WRITE, 9, 2, buf)
    assert (p.status, p.dmi_allowed, p.detail) == (Status.INCOMPLETE, False, "")
    assert p.extensions == {"unit": "ff"}      # tags belong to the initiator


@pytest.mark.parametrize("command, address, length, status, message", [
    (Command.READ, 0x10, 4, Status.ADDRESS_ERROR,
     "read of words 0x10..0x13 failed: address error"),
    (Command.WRITE, 5, 1, Status.COMMAND_ERROR, "write of word 0x5 failed: command error"),
    (Command.READ, 0, 1, Status.INCOMPLETE,
     "read of word 0x0 failed: incomplete (no target answered)"),
    (Command.WRITE, 0x20, 0, Status.GENERIC_ERROR,
     "write of 0 words at 0x20 failed: generic error"),
])
def test_error_message_names_command_words_and_status(command, address, length, status,
                                                      message):
    """Without a target's detail, the message is the command, the words and the status."""
    p = GenericPayload(command, address, length, status=status)
    assert p.error_message() == message
    with pytest.raises(SimError, match=f"^{re.escape(message)}$"):
        p.raise_for_status()


def test_error_message_prefers_the_targets_detail_and_is_empty_when_ok():
    """A target's detail is the message; an OK payload has none and does not raise."""
    p = GenericPayload(Command.READ, 0, 1, status=Status.ADDRESS_ERROR, detail="memory 'x': no")
    assert p.error_message() == "memory 'x': no"
    p.status = Status.OK
    assert p.is_ok() and p.error_message() == ""
    p.raise_for_status()

"""A checkpoint file is numbers and text (programs/checkpoint.py's layout: magic, version,
header size, JSON header, array data, SHA-256 of all before it), checked before anything is
restored: a file that is foreign, empty, of an older or newer format, truncated, damaged,
malformed, of another run or that does not fit the run is refused with its exact message,
never a traceback, and left as it is. A checkpoint crafted to run code when unpickled -- in
the old format's place, the whole file, or inside the new container -- runs nothing."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
import struct

import numpy as np
import pytest

from rlaccel.cli import main
from rlaccel.programs import checkpoint as ckm
from rlaccel.programs.checkpoint import MAGIC, CheckpointError
from rlaccel.programs.runner import run
from rlaccel.isa.machine import machine

CARTPOLE = machine("adhdp").programs / "cartpole.toml"
OVER = ["stop_on_success=false"]
TRIALS, EVERY = 4, 5
AGAIN = "; delete it to start afresh, or give another --checkpoint file"


class _Stop(Exception):
    pass


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> bytes:
    """The bytes of a checkpoint of the cart-pole run, saved at its fifth exchange."""
    ck = tmp_path_factory.mktemp("genuine") / "run.ckpt"
    save = ckm._Checkpoints.save

    def save_then_stop(self):
        if save(self):
            raise _Stop
        return False

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ckm._Checkpoints, "save", save_then_stop)
        with pytest.raises(_Stop):
            _resume(ck)
    return ck.read_bytes()


def _resume(path, **changes):
    options = {"trials": TRIALS, **changes}
    return run(CARTPOLE, OVER, checkpoint=path, checkpoint_every=EVERY, **options)


def _refused(path, message: str, **changes) -> None:
    """Resuming from ``path`` is refused with exactly ``message`` and leaves it as it was."""
    before = path.read_bytes()
    with pytest.raises(CheckpointError, match=f"^{re.escape(message)}$"):
        _resume(path, **changes)
    assert path.read_bytes() == before


# ---- the layout, written out here as its specification ----

def unpack(blob: bytes) -> tuple[int, dict, bytes]:
    version, size = struct.unpack_from("<IQ", blob, len(MAGIC))
    start = len(MAGIC) + 12
    return version, json.loads(blob[start:start + size]), blob[start + size:-32]


def pack(header: dict | bytes, data: bytes, version: int = 2) -> bytes:
    h = header if isinstance(header, bytes) else json.dumps(header, separators=(",", ":")
                                                            ).encode()
    body = MAGIC + struct.pack("<IQ", version, len(h)) + h + data
    return body + hashlib.sha256(body).digest()


def test_the_layout(genuine):
    version, header, data = unpack(genuine)
    assert version == ckm.FORMAT_VERSION == 2
    assert hashlib.sha256(genuine[:-32]).digest() == genuine[-32:]
    assert set(header) == {"identity", "fields", "data_bytes", "arrays"}
    assert header["data_bytes"] == len(data)
    assert set(header["identity"]) == {"manifest", "manifest_sha256", "overrides", "arch",
                                       "arch_sha256", "seed", "options", "binary_sha256",
                                       "rlaccel"}
    assert {e["dtype"] for e in header["arrays"]} <= ckm.DTYPES
    assert header["fields"]["exchanges"] == EVERY
    assert pack(header, data) == genuine


def test_a_genuine_checkpoint_resumes_to_the_uninterrupted_report(genuine, tmp_path):
    ck = tmp_path / "run.ckpt"
    ck.write_bytes(genuine)
    r = _resume(ck)
    assert r["sim"]["checkpoint"]["resumed_at"] == EVERY and not ck.exists()
    whole = run(CARTPOLE, OVER, trials=TRIALS)
    assert r["learning"] == whole["learning"] and r["cycles"] == whole["cycles"]


# ---- damaged, truncated, foreign, another format, another run ----

def test_truncated(genuine, tmp_path):
    ck = tmp_path / "c.ckpt"
    for n in (len(genuine) // 2, len(genuine) - 1):
        ck.write_bytes(genuine[:n])
        _refused(ck, f"{ck}: the checkpoint is truncated ({n:,} of {len(genuine):,} "
                     f"bytes){AGAIN}")
    for n in (10, 25):                       # inside the magic, inside the sizes
        ck.write_bytes(genuine[:n])
        _refused(ck, f"{ck}: the checkpoint is truncated ({n} bytes){AGAIN}")


def test_damaged(genuine, tmp_path):
    ck = tmp_path / "c.ckpt"
    damaged = f"{ck}: the checkpoint is damaged (its SHA-256 digest does not match its content)"
    for at in (len(genuine) - 100, len(genuine) - 1, len(MAGIC) + 12 + 20):  # data, digest,
        blob = bytearray(genuine)                                            # header
        blob[at] ^= 0x01
        ck.write_bytes(bytes(blob))
        _refused(ck, damaged + AGAIN)
    ck.write_bytes(genuine + b"\0")
    _refused(ck, damaged + AGAIN)


def test_foreign_and_empty(tmp_path):
    ck = tmp_path / "c.ckpt"
    left = "; give another --checkpoint file (this one is left as it is)"
    for blob in (b"\x89PNG\r\n\x1a\n" + bytes(100), b"machine = 'adhdp'\n",
                 pickle.dumps({"a": 1})):
        ck.write_bytes(blob)
        _refused(ck, f"{ck}: not an rlaccel checkpoint{left}")
    ck.write_bytes(b"")
    _refused(ck, f"{ck}: an empty file{left}")


def test_another_format_version(genuine, tmp_path):
    ck = tmp_path / "c.ckpt"
    _, header, data = unpack(genuine)
    for version in (1, 3):
        ck.write_bytes(pack(header, data, version))
        _refused(ck, f"{ck}: a checkpoint of format version {version}, which this rlaccel "
                     f"does not read (it reads version 2){AGAIN}")


def test_another_run(genuine, tmp_path):
    ck = tmp_path / "c.ckpt"
    ck.write_bytes(genuine)
    other = f"{ck}: the checkpoint was made by another run (it differs in"
    _refused(ck, f"{other} binary_sha256, seed){AGAIN}", seed=2)    # SEED is a define
    _refused(ck, f"{other} options){AGAIN}", trials=TRIALS + 1)
    _, header, data = unpack(genuine)
    header["identity"]["rlaccel"] = "0.0.1"
    ck.write_bytes(pack(header, data))
    _refused(ck, f"{other} rlaccel){AGAIN}")


# ---- crafted: valid digest and identity, wrong content ----

def _craft(genuine, change) -> bytes:
    _, header, data = unpack(genuine)
    data = change(header, data)
    return pack(header, data)


def _set_field(key, value):
    def change(header, data):
        header["fields"][key] = value
        return data
    return change


def _set_st(word, value):
    def change(header, data):
        e = next(e for e in header["arrays"] if e["name"] == "machine.ST")
        st = np.frombuffer(data, "<i8", e["nbytes"] // 8, e["offset"]).copy()
        st[word] = value
        return data[:e["offset"]] + st.tobytes() + data[e["offset"] + e["nbytes"]:]
    return change


@pytest.mark.parametrize("change, message", [
    (_set_field("exchanges", "5"), "does not fit this run: exchanges is a string, not an "
                                   "integer"),
    (_set_field("exchanges", 6), "does not fit this run: exchanges = 6 but its link made 5"),
    (_set_st(0, 10 ** 6), "does not fit this run: its machine does not wait at a host "
                          "exchange (PC 1000000)"),
    (_set_st(3, 10 ** 6), "does not fit this run: its controller state is out of range"),
], ids=["kind", "count", "pc", "pending"])
def test_content_that_does_not_fit(genuine, tmp_path, change, message):
    ck = tmp_path / "c.ckpt"
    ck.write_bytes(_craft(genuine, change))
    _refused(ck, f"{ck}: the checkpoint {message}{AGAIN}")


# ---- crafted to run code ----

class _Marker:
    """Unpickling this creates the file ``path``: code a pickle runs."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


def _payload(marker) -> bytes:
    return pickle.dumps({"format": "rlaccel-checkpoint-1", "fingerprint": {},
                         "run": _Marker(marker)})


def _old_format(genuine, payload):
    return payload                                   # where the old format kept its blob


def _old_fixar_format(genuine, payload):
    return payload.replace(b"rlaccel-checkpoint-1", b"rlaccel-fixar-checkpoint-1")


def _object_array(genuine, payload):                 # an array of Python objects
    def change(header, data):
        header["arrays"].append({"name": "host.run", "dtype": "|O", "shape": [1],
                                 "offset": len(data), "nbytes": len(payload)})
        header["data_bytes"] += len(payload)
        return data + payload
    return _craft(genuine, change)


def _bytes_array(genuine, payload):                  # the pickle as bytes of a memory
    def change(header, data):
        e = next(e for e in header["arrays"] if e["name"] == "machine.memory.unified")
        e.update(dtype="|u1", shape=[len(payload)], offset=len(data), nbytes=len(payload))
        header["data_bytes"] += len(payload)
        return data + payload
    return _craft(genuine, change)


def _extra_array(genuine, payload):                  # the pickle as an array never asked for
    def change(header, data):
        header["arrays"].append({"name": "host.run", "dtype": "|u1", "shape": [len(payload)],
                                 "offset": len(data), "nbytes": len(payload)})
        header["data_bytes"] += len(payload)
        return data + payload
    return _craft(genuine, change)


def _text_field(genuine, payload):                   # the pickle as the host's JSON state
    return _craft(genuine, _set_field("host", payload.decode("latin-1")))


def _as_header(genuine, payload):                    # the pickle where the header goes
    return pack(payload, b"")


def _after_digest(genuine, payload):
    return genuine + payload


CRAFTED = {
    "old-format": (_old_format, "a checkpoint of an older rlaccel (a pickle, which is never "
                                "loaded: it could run code)"),
    "old-fixar-format": (_old_fixar_format, "a checkpoint of an older rlaccel (a pickle, which "
                                            "is never loaded: it could run code)"),
    "object-array": (_object_array, "the checkpoint is malformed (the array host.run has dtype "
                                    "'|O'; a checkpoint holds booleans, integers and floats "
                                    "only)"),
    "bytes-array": (_bytes_array, "the checkpoint does not fit this run: the array "
                                  "machine.memory.unified is uint8, not int64"),
    "extra-array": (_extra_array, "the checkpoint does not fit this run: it holds arrays this "
                                  "run does not read (host.run)"),
    "text-field": (_text_field, "the checkpoint does not fit this run: host is a string, not a "
                                "table"),
    "as-header": (_as_header, "the checkpoint is malformed (its header is not a JSON table "
                              "with the size of its data)"),
    "after-digest": (_after_digest, "the checkpoint is damaged (its SHA-256 digest does not "
                                    "match its content)"),
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_checkpoint_crafted_to_run_code_runs_nothing(genuine, tmp_path, name):
    marker = tmp_path / "marker"
    craft, message = CRAFTED[name]
    ck = tmp_path / "c.ckpt"
    ck.write_bytes(craft(genuine, _payload(marker)))
    _refused(ck, f"{ck}: {message}{AGAIN}")
    assert not marker.exists()


def test_the_crafted_payload_does_run_code_when_unpickled(tmp_path):
    """The check above means something: unpickling the payload writes the marker."""
    marker = tmp_path / "marker"
    pickle.loads(_payload(marker))
    assert marker.exists()


def test_the_command_line_reports_without_a_traceback(genuine, tmp_path, capsys):
    ck = tmp_path / "c.ckpt"
    ck.write_bytes(_object_array(genuine, _payload(tmp_path / "marker")))
    args = ["run", str(CARTPOLE), "--set", OVER[0], "--trials", str(TRIALS), "-q",
            "--checkpoint", str(ck), "--checkpoint-every", str(EVERY)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rlaccel run: error: {ck}: the checkpoint is malformed")
    assert "Traceback" not in err and not (tmp_path / "marker").exists()
    ck.write_bytes(genuine[:-7])
    assert main(args) == 1
    assert "the checkpoint is truncated" in capsys.readouterr().err


def test_random_states_round_trip():
    """The helpers machines use for their generators: numpy's and Python's."""
    import random
    g, r = np.random.default_rng(7), random.Random(7)
    g.random(3), r.random()
    saved = ckm.Saved("f", {"g": ckm.rng_state(g), "r": ckm.py_random_state(r)}, {})
    json.dumps(saved.fields)                          # JSON as it is written
    g2, r2 = np.random.default_rng(0), random.Random(0)
    saved.rng("g", g2)
    saved.py_random("r", r2)
    assert g.random() == g2.random() and r.random() == r2.random()
    with pytest.raises(CheckpointError, match=r"^f: the checkpoint does not fit this run: g "
                                              r"is the state of a 'PCG64' generator, not "
                                              r"MT19937"):
        saved.rng("g", np.random.Generator(np.random.MT19937(1)))

"""The Perfetto trace: back-to-back slices meet exactly after Perfetto's rounding to whole
nanoseconds, the final cc.halt is traced, each agent is a process with its own tracks."""

import json

from rlaccel.tlm.trace import ChromeTrace

from tests.tlm.test_controller import DATA


def _ns(us: float) -> int:
    return round(us * 1000)          # what Perfetto's JSON importer does to ts and dur


def test_adjacent_slices_meet_in_whole_nanoseconds(machine, tmp_path):
    trace = ChromeTrace(175.0)
    body = DATA + "cc.lset 0\nl: ff X, W, H1, 4, 4\nff H1, W2, H2, 4, 4\ncc.loop 0, 50, l\n" \
                  "cc.halt\n"
    s, _ = machine(body, arch="adhdp", trace=trace)
    r = s.run()
    trace.write(tmp_path / "t.json")
    ev = [e for e in json.loads((tmp_path / "t.json").read_text())["traceEvents"]
          if e["ph"] == "X" and e["tid"] == 1]
    assert ev[-1]["name"] == "cc.halt"
    ends = [_ns(e["ts"]) + _ns(e["dur"]) for e in ev]
    starts = [_ns(e["ts"]) for e in ev]
    assert starts[1:] == ends[:-1]                   # every slice starts where the last ended
    assert ends[-1] == round(r.cycles * 1000 / 175.0)
    assert any(e["name"] == "stall" for e in ev)


def test_tracks_are_named_per_agent(machine, tmp_path):
    trace = ChromeTrace(175.0)
    s, _ = machine(DATA + "cc.host out=A, nout=1, inp=B, nin=2\ncc.halt\n", trace=trace)
    s.agent.link.host.reply = [1.0, 2.0]
    s.run()
    meta = [e for e in trace.events() if e["ph"] == "M"]
    assert {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "agent 0"}} in meta
    names = {e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert {"issue", "host link", "interconnect"} <= names
    assert [e["name"] for e in trace.events() if e["ph"] == "X" and e["tid"] == 2] == \
        ["host link"]


class _Unit:
    def __init__(self, name):
        self.name = name


def _same_records(trace_a, trace_b, tmp_path):
    """Both traces write the same file, and each file is what ``events()`` says."""
    for t, name in ((trace_a, "a.json"), (trace_b, "b.json")):
        t.write(tmp_path / name)
        doc = json.loads((tmp_path / name).read_text())
        assert doc["traceEvents"] == t.events()
        assert doc["otherData"]["dropped_events"] == t.dropped
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()


def test_compiled_blocks_make_the_python_loops_records(tmp_path):
    """A block of rows from the compiled loop gives the records the Python loop's calls give:
    stalls, instructions, unit tracks (numbered in order of first use), transactions between
    blocks, and the cut after max_events, mid-instruction."""
    import numpy as np
    ops = [("ff", (("datapath", 9), ("adam", 3))), ("sca.mul", (("scalar", 1),)),
           ("bp", (("adam", 30),))]
    rows = [(0, 0, 4, 0, 1), (1, 7, 1, 3, 0), (2, 9, 5, 1, 1), (0, 20, 4, 2, 0)]
    for cut in (1000, 6, 9):
        a, b = ChromeTrace(175.0, max_events=cut), ChromeTrace(175.0, max_events=cut)
        a.program(0, ops)
        a.compiled(0, np.array(rows[:2]), 4)
        a.transaction(0, "host link", 12, 40, 1, 10)
        a.compiled(0, np.array(rows[2:]), 5)
        units = {name: [(_Unit(u), c) for u, c in us] for name, us in ops}
        for i, (pc, start, busy, stall, shown) in enumerate(rows):
            name = ops[pc][0]
            b.instruction(0, pc, name, start, busy, stall, units[name] if shown else ())
            if i == 1:
                b.transaction(0, "host link", 12, 40, 1, 10)
        assert (a.kept, a.dropped) == (b.kept, b.dropped)
        _same_records(a, b, tmp_path)
    assert a.dropped == 1


def test_file_equals_events_on_a_run(machine, tmp_path):
    """The compiled formatter writes what events() holds, to the nanosecond."""
    trace = ChromeTrace(175.0)
    body = DATA + "cc.lset 0\nl: ff X, W, H1, 4, 4\nff H1, W2, H2, 4, 4\n" \
                  "cc.host out=A, nout=1, inp=B, nin=2\ncc.loop 0, 20, l\ncc.halt\n"
    s, _ = machine(body, arch="adhdp", trace=trace)
    s.agent.link.host.reply = [1.0, 2.0]
    s.run()
    trace.write(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"] == trace.events()


def test_a_units_own_slices_get_its_track(tmp_path):
    """Busy time no issue slot shows (a pipeline stage working through a batch) goes on the
    unit's own track, named as given, with the instruction's pc; the file equals events()."""
    trace = ChromeTrace(300.0)
    trace.unit(1, "cu3", "pfp 22x64", 100, 118, pc=7)
    trace.unit(1, "cu3", "pfp 22x64", 218, 118, pc=7)
    trace.unit(1, "ring", "rgather", 150, 5, pc=9)
    ev = [e for e in trace.events() if e["ph"] == "X"]
    assert [(e["pid"], e["name"], e["cat"], e["args"]) for e in ev] == \
        [(2, "pfp 22x64", "unit", {"pc": 7})] * 2 + [(2, "rgather", "unit", {"pc": 9})]
    assert ev[0]["tid"] == ev[1]["tid"] != ev[2]["tid"]
    meta = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace.events()
            if e["name"] == "thread_name"}
    assert meta[(2, ev[0]["tid"])] == "cu3" and meta[(2, ev[2]["tid"])] == "ring"
    assert _ns(ev[1]["ts"]) == _ns(ev[0]["ts"]) + _ns(ev[0]["dur"])
    trace.write(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"] == trace.events()


def test_a_unit_track_can_be_labelled(tmp_path):
    """label() renames a unit's track in every agent (the stage a compute unit is); the
    events and the other tracks stay as they were."""
    trace = ChromeTrace(300.0)
    trace.unit(0, "cu3", "pfp", 100, 118, pc=7)
    trace.unit(1, "cu3", "pfp", 100, 118, pc=7)
    trace.unit(1, "ring", "rgather", 150, 5, pc=9)
    before = [e for e in trace.events() if e["ph"] == "X"]
    trace.label("cu3", "cu3 value: FP q L1")
    assert [e for e in trace.events() if e["ph"] == "X"] == before
    meta = {(e["pid"], e["args"]["name"]) for e in trace.events() if e["name"] == "thread_name"}
    assert {(1, "cu3 value: FP q L1"), (2, "cu3 value: FP q L1"), (2, "ring")} <= meta
    assert not any(name == "cu3" for _, name in meta)
    trace.write(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"] == trace.events()


def test_the_file_is_the_same_in_chunks_and_without_the_head_table(machine, tmp_path,
                                                                   monkeypatch):
    """The writer formats events chunk by chunk, copying each (name, category, pid, tid)
    head from its first event: the file equals ``events()`` whatever the chunk and with the
    head table off."""
    import rlaccel.tlm.trace as T
    trace = ChromeTrace(175.0)
    body = DATA + "cc.lset 0\nl: ff X, W, H1, 4, 4\nff H1, W2, H2, 4, 4\ncc.loop 0, 9, l\n" \
                  "cc.halt\n"
    s, _ = machine(body, arch="adhdp", trace=trace)
    s.run()
    trace.write(tmp_path / "whole.json")
    whole = (tmp_path / "whole.json").read_text()
    assert json.loads(whole)["traceEvents"] == trace.events()
    for chunk, heads in ((1, 1 << 20), (7, 1 << 20), (5, 0)):
        monkeypatch.setattr(T, "_CHUNK", chunk)
        monkeypatch.setattr(T, "_MAX_HEADS", heads)
        trace.write(tmp_path / "t.json")
        assert (tmp_path / "t.json").read_text() == whole, (chunk, heads)


def test_nothing_is_left_out_unless_asked(machine, tmp_path):
    """By default every event is kept (no cap); a cap and a window leave events out, count
    them, and say so in the file; a window keeps exactly the events that overlap it, from
    the compiled loop's blocks as from the Python loop's records."""
    body = DATA + "cc.lset 0\nl: ff X, W, H1, 4, 4\nff H1, W2, H2, 4, 4\n" \
                  "cc.host out=A, nout=1, inp=B, nin=2\ncc.loop 0, 40, l\ncc.halt\n"

    def traced(**kw):
        t = ChromeTrace(175.0, **kw)
        s, _ = machine(body, arch="adhdp", trace=t)
        s.agent.link.host.reply = [1.0, 2.0]
        s.run()
        return t

    full = traced()
    assert full.stats()["beyond_max_events"] == full.stats()["outside_window"] == 0
    every = [e for e in full.events() if e["ph"] == "X"]
    assert len(every) == full.kept
    capped = traced(max_events=50)
    assert (capped.kept, capped.dropped) == (50, full.kept - 50)
    lo, hi = 2_000, 3_000
    windowed = traced(window=(lo, hi))
    us = full._us
    inside = [e for e in every
              if round(e["ts"] * 1000) < round(us(hi) * 1000)
              and round((e["ts"] + e["dur"]) * 1000) > round(us(lo) * 1000)]
    got = [e for e in windowed.events() if e["ph"] == "X"]
    assert got == inside and 0 < len(got) < len(every)
    assert windowed.outside == full.kept - len(got)
    windowed.write(tmp_path / "w.json")
    other = json.loads((tmp_path / "w.json").read_text())["otherData"]
    assert other["outside_window"] == windowed.outside
    assert other["window_cycles"] == [lo, hi]


def test_utilisation_counter_is_the_issue_slots_busy_share(machine, tmp_path):
    """The counter's values are the share of each span in which the issue slot ran an
    instruction: between 0 and 1, and over the run they add up to the instructions' cycles."""
    trace = ChromeTrace(175.0)
    body = DATA + "cc.lset 0\nl: ff X, W, H1, 4, 4\nff H1, W2, H2, 4, 4\ncc.loop 0, 30, l\n" \
                  "cc.halt\n"
    s, _ = machine(body, arch="adhdp", trace=trace)
    s.run()
    counters = [e for e in trace.events() if e["ph"] == "C"]
    assert counters and all(e["name"] == "utilisation" and e["pid"] == 1 for e in counters)
    shares = [e["args"]["issue"] for e in counters]
    assert all(0 <= v <= 1 for v in shares) and max(shares) > 0
    busy = sum(e["dur"] for e in trace.events() if e.get("cat") == "instruction")
    ts = [e["ts"] for e in counters]
    ends = [e["ts"] + e["dur"] for e in trace.events() if e.get("cat") == "instruction"]
    spans = [b - a for a, b in zip(ts, ts[1:] + [max(ends)])]
    assert abs(sum(v * w for v, w in zip(shares, spans)) - busy) < 1e-3 * busy + 0.01
    trace.write(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"] == trace.events()


def test_host_exchanges_get_flow_arrows(machine):
    """Every host-link transaction gets a flow from the issue slot, starting and finishing
    where the transaction starts."""
    trace = ChromeTrace(175.0)
    body = DATA + "cc.lset 0\nl: cc.host out=A, nout=1, inp=B, nin=2\ncc.loop 0, 3, l\ncc.halt\n"
    s, _ = machine(body, trace=trace)
    s.agent.link.host.reply = [1.0, 2.0]
    s.run()
    ev = trace.events()
    host = [e for e in ev if e["ph"] == "X" and e["tid"] == 2]
    starts = [e for e in ev if e["ph"] == "s"]
    ends = [e for e in ev if e["ph"] == "f"]
    assert len(host) == len(starts) == len(ends) == 3
    assert [e["ts"] for e in starts] == [e["ts"] for e in ends] == [e["ts"] for e in host]
    assert {e["tid"] for e in starts} == {1} and {e["tid"] for e in ends} == {2}
    assert len({e["id"] for e in starts}) == 3


def test_power_counter_spends_the_instructions_energy(machine):
    """With the energy of each mnemonic given, the power counter's values times their spans
    add up to the energy of the instructions traced."""
    trace = ChromeTrace(175.0)
    body = DATA + "cc.lset 0\nl: ff X, W, H1, 4, 4\nff H1, W2, H2, 4, 4\ncc.loop 0, 30, l\n" \
                  "cc.halt\n"
    s, _ = machine(body, arch="adhdp", trace=trace)
    s.run()
    pj = {"ff": 100.0, "cc.loop": 3.0}
    trace.energies(pj)
    ev = trace.events()
    power = [e for e in ev if e["name"] == "power"]
    ins = [e for e in ev if e.get("cat") == "instruction"]
    ts = [e["ts"] for e in power] + [max(e["ts"] + e["dur"] for e in ins)]
    spent = sum(e["args"]["mW"] * (b - a) * 1000 for e, a, b in zip(power, ts, ts[1:]))
    want = sum(pj.get(e["name"], 0.0) for e in ins)
    assert abs(spent - want) < 1e-3 * want

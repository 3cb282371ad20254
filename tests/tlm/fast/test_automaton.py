"""The timing automaton of a batch: a timing state is interned relative to its own cycle,
without what can no longer matter, and members equal their single runs whether their timing
goes through the automaton or, when it cannot (full, another branch penalty), through their
own rows."""

import numpy as np
import pytest

from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.automaton import MAX_PENDING, Automaton, _intern, _normalize
from rlaccel.tlm.fast.batch import Batch
from rlaccel.tlm.fast.program import PEND_FIELDS

from tests.tlm.fast.test_batch import _platform

SPECS = [(1, 5), (2, 30), (3, 1), (4, 17)]


def _state(t, rows, units):
    P = np.zeros((MAX_PENDING + 4, PEND_FIELDS), dtype=np.int64)
    for q, r in enumerate(rows):
        P[q, :len(r)] = r
    return t, len(rows), P, np.array(units, dtype=np.int64)


def _id(a, t, rows, units):
    t, k, P, U = _state(t, rows, units)
    X = np.zeros(a.X.shape, dtype=np.int64)
    assert _normalize(t, k, P, U, X)
    return _intern(X, a.SS, a.HT, a.A, len(U), PEND_FIELDS)


def test_states_are_relative_to_their_cycle():
    """The same pending results and unit times 100 cycles later are the same state; results
    ready and units free by the state's cycle do not count; a later result is another
    state."""
    a = Automaton(npc=4, units=2, fields=PEND_FIELDS, penalty=1)
    row = [0, 10, 14, 7, 5, 1 << 40, 0, 0, 1 << 40, 0]       # ready at 7, t0 5
    s = _id(a, 3, [row], [5, 0])
    later = [0, 10, 14, 107, 105, 1 << 40, 0, 0, 1 << 40, 0]
    stale = [1, 0, 4, 100, 100, 1 << 40, 0, 0, 1 << 40, 0]  # ready by cycle 103
    assert _id(a, 103, [stale, later], [105, 90]) == s
    other = [0, 10, 14, 108, 105, 1 << 40, 0, 0, 1 << 40, 0]
    assert _id(a, 103, [later], [105, 103]) == s
    assert _id(a, 103, [other], [105, 0]) != s
    assert a.states == 2


def test_too_many_pending_results_are_not_interned():
    t, k, P, U = _state(0, [[0, q, q + 1, 5, 5, 1 << 40, 0, 0, 1 << 40, 0]
                            for q in range(MAX_PENDING + 1)], [0])
    X = np.zeros(1 + 1 + MAX_PENDING * PEND_FIELDS, dtype=np.int64)
    assert not _normalize(t, k, P, U, X)


def _check(batch, res, adjust=None):
    for (s, n), p, r in zip(SPECS, batch, res):
        single = _platform(s, n)
        if adjust is not None:
            adjust(single)
        rs = single.run()
        assert r.per_pc == rs.per_pc
        assert np.array_equal(p.symbol_view("X"), single.symbol_view("X"))
        d, ds = r.as_dict(), rs.as_dict()
        for key in ("cycles", "energy_pj", "instructions", "stall_cycles", "host_cycles",
                    "saturations"):
            assert d[key] == ds[key], key


def test_the_automaton_is_few_states():
    """Members of different paths share the automaton: its states are far fewer than the
    instructions executed, and each transition is computed once."""
    batch = [_platform(s, n) for s, n in SPECS]
    b = Batch(batch)
    res = b.run()
    _check(batch, res)
    executed = sum(r.instructions for r in res)
    assert 0 < b.automaton.states < 40 and b.automaton.misses < executed / 5


@pytest.mark.parametrize("states", [1, 3])
def test_a_full_automaton_runs_members_on_their_own_rows(states):
    batch = [_platform(s, n) for s, n in SPECS]
    b = Batch(batch)
    first = b.automaton
    b.automaton = Automaton(first.TR.shape[1], first.XUF.shape[0], first.XPEND.shape[1],
                            int(first.A[1]), states=states)
    _check(batch, b.run())
    assert b.automaton.states == states


def test_another_branch_penalty_runs_on_its_own_rows():
    """A member whose branch penalty is not the automaton's keeps its own rule."""
    batch = [_platform(s, n) for s, n in SPECS]
    batch[1].agent.controller.branch_penalty += 3

    def slower(p):
        if p.agent.link.host.budget == SPECS[1][1]:
            p.agent.controller.branch_penalty += 3

    _check(batch, Batch(batch).run(), slower)


def test_a_long_program_gets_fewer_states():
    """The transition table of a long program stays bounded (the members of a full
    automaton run on their own rows)."""
    from rlaccel.tlm.fast.automaton import STATES, TABLE_WORDS
    assert Automaton(40, 4, PEND_FIELDS, 1).SS.shape[0] == STATES
    long = Automaton(200_000, 4, PEND_FIELDS, 1)
    assert long.SS.shape[0] == 16 and long.TR.size <= max(TABLE_WORDS, 16 * 3 * 200_000)

"""The in-order checker: matches pass, a mismatch names opcode, operands, expected, actual
and cycle, missing outputs count, unexpected outputs count."""

from rlaccel.rtl.scoreboard import Scoreboard, Txn


def test_match_and_mismatch_message():
    b = Scoreboard("lane")
    b.expect(Txn("mul", {"a": 3, "b": 4}, {"y": 12, "sat_mul": False}, cycle=7))
    b.expect(Txn("mulsub", {"a": 1, "b": 2, "c": 5}, {"y": 3, "sat_mul": False}, cycle=8))
    assert b.observe({"y": 12, "sat_mul": False}, 9)
    assert not b.observe({"y": 4, "sat_mul": False}, 10)
    assert b.checked == 2 and b.mismatch_count == 1
    assert str(b.mismatches[0]) == ("lane: mulsub (a=1, b=2, c=5) applied at cycle 8: expected "
                                    "y=3, got y=4 at cycle 10")


def test_missing_and_unexpected_outputs():
    b = Scoreboard("activation")
    b.expect(Txn("tanh", {"x": 1}, {"y": 1}, cycle=1))
    b.finish(5)
    assert b.mismatch_count == 1
    assert "expected y=1, got y=none at cycle 5" in str(b.mismatches[0])
    b.observe({"y": 2}, 6)
    assert b.mismatch_count == 2 and "(none)" in str(b.mismatches[1])

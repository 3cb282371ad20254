"""The first compile says what it compiles and how long it took (numba's on-disk cache
spares later runs; the command line prints these lines)."""

from rlaccel.tlm.fast.jit import announce_compiles


def test_a_compile_is_announced_before_and_after():
    import numba

    lines = []
    announce_compiles(lines.append)

    def helper(x):
        return x + 1

    inner = numba.njit(helper)

    @numba.njit
    def fresh(x):
        return inner(x) * 2

    assert fresh(3) == 8
    assert len(lines) == 2                       # the nested compile is part of the outer
    assert lines[0].startswith("compiling ") and "fresh with numba (once" in lines[0]
    assert lines[1].startswith("compiled ") and " s of CPU (" in lines[1]
    fresh(4)
    assert len(lines) == 2                       # compiled once

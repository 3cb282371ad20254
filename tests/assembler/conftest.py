import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.util.errors import AsmError


@pytest.fixture
def asm():
    """Assemble a snippet for adhdp (``.arch adhdp`` prepended)."""
    def run(body: str, **kw):
        return assemble(".arch adhdp\n" + body, "t.s", **kw)
    return run


@pytest.fixture
def asm_error():
    """The AsmError text of a snippet that must not assemble (``.arch adhdp`` is line 1)."""
    def run(body: str, **kw):
        with pytest.raises(AsmError) as info:
            assemble(".arch adhdp\n" + body, "t.s", **kw)
        return str(info.value)
    return run

"""What the RTL tests of the layer and of every machine share (the ``hdl_tools`` fixture is in
``tests/conftest.py``, so that the machines' RTL tests see it too)."""


def assert_clean(result):
    """A bench result with transactions and no mismatches (printing the first ones)."""
    assert result.transactions > 0
    assert result.mismatch_count == 0, "\n".join(str(m) for m in result.mismatches)

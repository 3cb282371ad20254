"""tlm/core/README.md: the example prints exactly what the README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "tlm" / "core" / "README.md"


def test_readme_example_prints_its_documented_output():
    """Run the README's Python block; its output equals the block that follows 'prints'."""
    text = README.read_text()
    code, output = re.findall(r"```(?:python)?\n(.*?)```", text, flags=re.DOTALL)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert out.getvalue() == output

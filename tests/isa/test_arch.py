"""Architecture files: knobs validated, every width derived."""

import pytest

from rlaccel.isa.arch import arch_names, derive, load_arch
from rlaccel.util.errors import ArchError


def test_shipped_architectures():
    assert {"adhdp", "adhdp-f64", "fixar", "maddpg", "learninggroup", "darl"} <= set(arch_names())


def test_adhdp_memories_from_the_seed():
    """1536-byte synapse SRAM, 192-byte neuron registers and 336-byte buffers in 24-bit
    words; the unified space is neurons then buffers."""
    a = load_arch("adhdp")
    assert a.knobs.synapse_words * 3 == 1536
    assert a.knobs.neuron_words * 3 == 192
    assert a.knobs.buffer_words * 3 == 336
    assert a.geometry.unified_words == 176
    assert a.geometry.widths["uaddr"] == 8 and a.geometry.widths["saddr"] == 9
    assert a.geometry.ranges["dim"] == (1, 64) and a.geometry.widths["dim"] == 6


def test_derive_scales_with_knobs():
    """Doubling a memory adds exactly one address bit."""
    a = load_arch("adhdp")
    from dataclasses import replace
    g2 = derive(replace(a.knobs, synapse_words=1024))
    assert g2.widths["saddr"] == a.geometry.widths["saddr"] + 1


def _write(tmp_path, body):
    p = tmp_path / "m.toml"
    p.write_text(body)
    return str(p)


BASE = """[machine]
clock_mhz = 100.0
lanes = 2
dtype = "q6.18"
imem_bytes = 64
synapse_words = 32
neuron_words = 16
"""


def test_load_by_path(tmp_path):
    a = load_arch(_write(tmp_path, BASE))
    assert a.name == "m" and a.geometry.unified_words == 16


def test_unknown_key_with_hint(tmp_path):
    with pytest.raises(ArchError, match=r"\[machine\] has unknown key 'lane' \(did you mean "
                                        r"'lanes'\?\)"):
        load_arch(_write(tmp_path, BASE + "lane = 3\n"))


def test_wrong_type(tmp_path):
    with pytest.raises(ArchError, match=r"\[machine\] lanes must be an integer, not 'four'"):
        load_arch(_write(tmp_path, BASE.replace("lanes = 2", 'lanes = "four"')))


def test_missing_key(tmp_path):
    with pytest.raises(ArchError, match=r"\[machine\] is missing lanes"):
        load_arch(_write(tmp_path, BASE.replace("lanes = 2\n", "")))


def test_bad_dtype(tmp_path):
    with pytest.raises(ArchError, match="dtype"):
        load_arch(_write(tmp_path, BASE.replace("q6.18", "q99.99")))


def test_unknown_family(tmp_path):
    with pytest.raises(ArchError, match="unknown family 'quantum'"):
        load_arch(_write(tmp_path, BASE + 'families = ["base", "quantum"]\n'))


def test_bad_toml(tmp_path):
    with pytest.raises(ArchError, match="not valid TOML"):
        load_arch(_write(tmp_path, "[machine\n"))


def test_unknown_name():
    with pytest.raises(ArchError, match=r"unknown architecture 'adhpd' \(did you mean 'adhdp'\?\)"):
        load_arch("adhpd")


def test_a_simulator_table_is_checked_by_its_keys(tmp_path):
    """arch_table: a family's own table, empty when absent, refused when not a table or with a
    key its reader does not know (the message names the file, the table and the keys)."""
    from rlaccel.isa.arch import arch_table
    a = load_arch(_write(tmp_path, BASE + "[unit]\nwidth = 4\n"))
    assert arch_table(a, "unit", ("width", "depth")) == {"width": 4}
    assert arch_table(a, "other", ("x",)) == {}
    with pytest.raises(ArchError, match=r"m\.toml: \[unit\] has unknown key\(s\) width; "
                                        r"known: depth$"):
        arch_table(a, "unit", ("depth",))

"""rtl/hdl.py's Yosys wrapper: black-box declarations keep their instances as cells."""

from rlaccel.rtl import hdl


def test_synth_counts_black_boxes_as_cells(hdl_tools, tmp_path):
    top = tmp_path / "top.v"
    top.write_text("module top(input [7:0] a, input [7:0] b, output [7:0] y);\n"
                   "  wire [7:0] p;\n"
                   "  box u0 (.a(a), .b(b), .y(p));\n"
                   "  box u1 (.a(p), .b(b), .y(y));\n"
                   "endmodule\n")
    lib = tmp_path / "lib.v"
    lib.write_text("(* blackbox *)\n"
                   "module box(input [7:0] a, input [7:0] b, output [7:0] y);\nendmodule\n")
    rep = hdl.synth(top, "top", "generic", blackboxes=lib)
    assert rep["by_type"].get("box") == 2

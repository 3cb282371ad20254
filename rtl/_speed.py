"""Faster, exact replacements for helpers MyHDL calls in simulations, elaboration and conversion.

``intbv(0, min=..., max=...)`` -- how a convertible generator declares a signed variable --
measures its bounds with ``len(myhdl._bin.bin(x))``, a pure-Python loop of ``divmod`` per
bit; in the datapath's simulation that loop was 60 % of the run time. :func:`bin` returns
the same strings from Python's own formatting; it replaces the name only inside
``myhdl._intbv``.

Every ``@block`` instance and every ``@always_seq``, ``@always_comb``, ``@always`` and
``@instance`` generator records who made it (MyHDL's ``_getCallInfo``: the defining function's
name and namespace, and whether its caller is a block) by calling ``inspect.stack()``, which
builds a record of *every* frame on the stack, each with its source line and module looked
up, to use three of them: the deeper the stack and the more modules loaded (under pytest),
the slower. :func:`block_call_info` and :func:`instance_call_info` read the same frames with
``sys._getframe`` and return the same records.

Every generator's syntax tree (MyHDL's ``_makeAST``, for each instance of a generator at
elaboration and again at conversion) starts with ``inspect.getsource``, which re-tokenizes
the defining file to find the function's end each time: the 16 x 16 array's 256 PEs read
the same few functions' source about 2,500 times. :func:`make_ast` reads a function's
source once per code object and compiles a new tree from it each time (MyHDL edits the
trees it is given).

Under pytest, elaborating and converting FIXAR's 16 x 16 array took 20 to 25 s with MyHDL's
helpers and 3 s with these (two runs each, the two-core machine shared). :func:`install`
puts the replacements in the MyHDL modules that call them;
``tests/machines/adhdp/rtl/test_speed.py`` compares each with MyHDL's own and the Verilog
converted with either set.
"""

from __future__ import annotations

import __future__
import ast
import inspect
import sys

import myhdl._always
import myhdl._always_comb
import myhdl._always_seq
import myhdl._block
import myhdl._instance
import myhdl._intbv
import myhdl._util
import myhdl.conversion._analyze

__all__ = ["bin", "block_call_info", "instance_call_info", "make_ast", "use", "install", "MYHDL",
           "FAST"]

#: the modules whose ``_getCallInfo`` is an instantiator's (imported from ``myhdl._instance``)
_INSTANCE_CALLERS = (myhdl._instance, myhdl._always, myhdl._always_comb, myhdl._always_seq)
#: the modules that call ``_makeAST``
_AST_CALLERS = (myhdl._util, myhdl._instance, myhdl.conversion._analyze)
#: MyHDL's originals by name, for the tests' comparison
MYHDL = {"bin": myhdl._intbv.bin, "block": myhdl._block._getCallInfo,
         "instance": myhdl._instance._getCallInfo, "ast": myhdl._util._makeAST}


def bin(num, width: int = 0) -> str:                 # noqa: A001 - MyHDL's name
    """``myhdl.bin``: the shortest two's-complement digits of ``num``, sign-padded to
    ``width``."""
    num = int(num)
    if num >= 0:
        s = format(num, "b")
    else:
        s = format(num & ((1 << ((~num).bit_length() + 1)) - 1), "b")
    if width:
        return (width - len(s)) * ("1" if num < 0 else "0") + s
    return s


def _frames(n: int) -> list:
    """The frames of the first ``n`` records ``inspect.stack()`` returns where this is called
    (fewer where the stack is shallower): the calling function's frame, its caller's, ..."""
    out, f = [], sys._getframe(1)
    while f is not None and len(out) < n:
        out.append(f)
        f = f.f_back
    return out


def _in_block(frame) -> bool:
    f_locals = frame.f_locals
    return "self" in f_locals and isinstance(f_locals["self"], myhdl._block._Block)


def block_call_info():
    """``myhdl._block._getCallInfo``: frame 3 (4 in a list comprehension) defines the block's
    namespace, the next one is its caller (0 is this function, 1 the block's constructor)."""
    stack = _frames(6)
    callerrec = stack[4] if len(stack) > 4 else None
    funcrec = stack[3]
    if funcrec.f_code.co_name == "<listcomp>":
        funcrec = stack[4]
        callerrec = stack[5] if len(stack) > 5 else None
    symdict = dict(funcrec.f_globals)
    symdict.update(funcrec.f_locals)
    modctxt = callerrec is not None and _in_block(callerrec)
    return myhdl._block._CallInfo(funcrec.f_code.co_name, modctxt, symdict)


def instance_call_info():
    """``myhdl._instance._getCallInfo``: frame 2 is the block function that defines the
    generator, frame 3 its caller (0 is this function, 1 the decorator)."""
    stack = _frames(4)
    funcrec = stack[2]
    symdict = dict(funcrec.f_globals)
    symdict.update(funcrec.f_locals)
    return myhdl._instance._CallInfo(funcrec.f_code.co_name, _in_block(stack[3]), symdict)


#: ``compile``'s flags of the ``__future__`` features (MyHDL passes a function's own on)
_FUTURE = 0
for _name in __future__.all_feature_names:
    _FUTURE |= getattr(__future__, _name).compiler_flag
#: ``id`` of a function's code -> the code, its dedented source, source file and first line
#: less one
_SOURCES: dict = {}


def make_ast(f):
    """``myhdl._util._makeAST``: a new syntax tree of function ``f``'s source (dedented,
    compiled with ``f``'s ``__future__`` flags), with its ``sourcefile`` and ``lineoffset``."""
    code = f.__code__
    known = _SOURCES.get(id(code))
    if known is None or known[0] is not code:
        known = _SOURCES[id(code)] = (code, myhdl._util._dedent(inspect.getsource(f)),
                                      inspect.getsourcefile(f),
                                      inspect.getsourcelines(f)[1] - 1)
    _, source, sourcefile, lineoffset = known
    tree = compile(source, filename="<unknown>", mode="exec",
                   flags=ast.PyCF_ONLY_AST | (code.co_flags & _FUTURE), dont_inherit=True)
    tree.sourcefile = sourcefile
    tree.lineoffset = lineoffset
    return tree


def use(helpers: dict) -> None:
    """Put ``helpers`` (by :data:`MYHDL`'s names) where MyHDL calls them."""
    myhdl._intbv.bin = helpers["bin"]
    myhdl._block._getCallInfo = helpers["block"]
    for m in _INSTANCE_CALLERS:
        m._getCallInfo = helpers["instance"]
    for m in _AST_CALLERS:
        m._makeAST = helpers["ast"]


#: this module's replacements by :data:`MYHDL`'s names
FAST = {"bin": bin, "block": block_call_info, "instance": instance_call_info, "ast": make_ast}


def install() -> None:
    use(FAST)

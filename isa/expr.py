"""A tiny, safe integer expression evaluator shared by the ISA table and the assembler.

Expressions use integers, names, ``+ - * // % << >> & | ~``, unary minus and parentheses.
"""

from __future__ import annotations

import ast
from typing import Callable, Mapping

__all__ = ["compile_expr", "names_in"]

_BINOPS: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
    ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
}


def _eval(node: ast.AST, env: Mapping[str, int]) -> int:
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
        v = _eval(node.operand, env)
        return -v if isinstance(node.op, ast.USub) else (~v if isinstance(node.op, ast.Invert) else v)
    raise ValueError(f"unsupported expression element {ast.dump(node)}")


def compile_expr(text: str) -> Callable[[Mapping[str, int]], int]:
    """Compile ``text`` once; the result evaluates it against a name -> int mapping."""
    tree = ast.parse(text, mode="eval")
    _eval_check = names_in(text)  # raises early on syntax the evaluator rejects
    del _eval_check
    return lambda env: _eval(tree, env)


def names_in(text: str) -> set[str]:
    """Names an expression refers to."""
    return {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}

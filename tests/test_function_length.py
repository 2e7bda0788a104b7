"""Kernels a reader can follow: no function of the library is longer than 150 lines."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 150


def _long_functions(source, name):
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1  # decorators excluded, docstring included
            if length > LIMIT:
                out.append(f"{name}:{node.lineno} {node.name} ({length} lines)")
    return out


def test_no_library_function_is_over_150_lines():
    long = []
    for package in ("csdt", "csboost_plugins"):
        for path in sorted((ROOT / package).rglob("*.py")):
            long += _long_functions(path.read_text(), path.relative_to(ROOT).as_posix())
    assert not long, long


def test_the_scan_sees_a_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    assert _long_functions(f"def f():\n{body}\n", "m.py") == [f"m.py:1 f ({LIMIT + 1} lines)"]

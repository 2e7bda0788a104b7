"""Shared docstring text (``csboost_plugins._docstrings.fill_doc``): a placeholder is filled
exactly or refused at import, no public docstring keeps one, and a filled Parameters section documents
the function's own parameters with its own defaults."""

import ast
import importlib
import inspect
import re
import sys
import warnings
from pathlib import Path

import pytest

from csboost_plugins._docstrings import DOCS, fill_doc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))

from api_pages import MODULES, public_names  # noqa: E402

PLACEHOLDER = re.compile(r"%\([^()]*\)s")


def test_unknown_fragment_raises_naming_it():
    with pytest.raises(ValueError, match=r"f's docstring names an unknown fragment 'fp_costs'"):
        @fill_doc
        def f(fp_cost=None):
            """Summary.

            %(Parameters, fp_costs)s
            """


def test_unknown_local_fragment_and_inline_placeholder_raise():
    with pytest.raises(ValueError, match="unknown fragment 'rows'"):
        @fill_doc(row=DOCS["X"])
        def g(X):
            """Summary.

            %(Parameters, rows)s
            """
    with pytest.raises(ValueError, match="must stand alone on its line"):
        @fill_doc
        def h(X):
            """Summary: see %(X)s."""


def test_fill_doc_indents_joins_sections_and_prefers_local_fragments():
    def m(self, X, y):
        pass
    m.__doc__ = "Summary with 100 % of the money.\n\n    %(Parameters, X, y, returns_labels)s\n    "
    assert fill_doc(m) is m
    assert m.__doc__ == (
        "Summary with 100 % of the money.\n\n"
        "    Parameters\n"
        "    ----------\n"
        "    X : array-like or DataFrame of shape (n_samples, n_features)\n"
        "        Rows.\n"
        "    y : array-like of shape (n_samples,)\n"
        "        Binary labels.\n"
        "\n"  # a blank line, no trailing blanks, before the next section
        "    Returns\n"
        "    -------\n"
        "    ndarray of shape (n_samples,)\n"
        "        Predicted labels (``classes_``).\n"
        "    ")

    @fill_doc(X="X : int\n    Local text wins.")
    def k(X):
        """Summary.

        %(Parameters, X)s
        """
    assert k.__doc__ == "Summary.\n\n        Parameters\n        ----------\n        X : int\n            Local text wins.\n        "


def test_a_docstring_without_placeholders_or_without_a_docstring_is_unchanged():
    def f():
        pass

    def g():
        """Plain, 5 % (not a placeholder)."""
    assert fill_doc(f).__doc__ is None and fill_doc(g).__doc__ == "Plain, 5 % (not a placeholder)."


def _public_objects():
    seen = set()
    for modnames in MODULES.values():
        for modname in modnames:
            module = importlib.import_module(modname)
            yield modname, module
            for name, obj in public_names(module):
                if id(obj) in seen:
                    continue
                seen.add(id(obj))
                yield f"{modname}.{name}", obj
                if inspect.isclass(obj):
                    for mname, member in vars(obj).items():
                        if mname.startswith("_") and mname != "__init__":
                            continue
                        member = getattr(member, "__func__", getattr(member, "fget", member))
                        if callable(member) or isinstance(member, property):
                            yield f"{modname}.{name}.{mname}", member


def test_no_public_docstring_keeps_a_placeholder():
    left = [where for where, obj in _public_objects() if PLACEHOLDER.search(getattr(obj, "__doc__", None) or "")]
    assert left == []


def _filled_functions():
    """(module, qualified name) of every function whose source docstring has a placeholder."""
    for path in sorted([*(ROOT / "csboost_plugins").rglob("*.py"), *(ROOT / "csdt").rglob("*.py")]):
        if path.name == "_docstrings.py":  # describes the placeholders
            continue
        tree = ast.parse(path.read_text())
        modname = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef) and PLACEHOLDER.search(ast.get_docstring(sub) or ""):
                        yield modname, f"{node.name}.{sub.name}"
            elif isinstance(node, ast.FunctionDef) and node.col_offset == 0 \
                    and PLACEHOLDER.search(ast.get_docstring(node) or ""):
                yield modname, node.name


FILLED = sorted(set(_filled_functions()))


def test_the_packages_use_the_shared_text():
    assert len(FILLED) >= 40  # the duplicates it replaced: metrics, estimators' fit/predict, plots, samplers...


_DEFAULT = re.compile(r"default[= ](.+)$")


@pytest.mark.parametrize(("modname", "qualname"), FILLED, ids=[f"{m}.{q}" for m, q in FILLED])
def test_filled_parameters_are_the_functions_own(modname, qualname):
    from numpydoc.docscrape import FunctionDoc

    obj = importlib.import_module(modname)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    obj = getattr(obj, "__func__", obj)
    assert not PLACEHOLDER.search(obj.__doc__)
    sig = inspect.signature(obj).parameters
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        params = FunctionDoc(obj)["Parameters"]
    assert params, f"{modname}.{qualname} lost its Parameters section"
    for p in params:
        for name in (n.strip() for n in p.name.split(",")):
            assert name.lstrip("*") in sig, f"{modname}.{qualname} documents {name!r}, not in its signature"
            match = _DEFAULT.search(p.type)
            if match and name in sig:
                try:
                    documented = ast.literal_eval(match.group(1).strip())
                except (ValueError, SyntaxError):
                    continue
                default = sig[name].default
                assert default == documented, (f"{modname}.{qualname}: {name} documented with default "
                                               f"{documented!r}, the signature says {default!r}")

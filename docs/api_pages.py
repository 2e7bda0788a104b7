"""Write the API reference pages from the packages' ``__all__`` (run by ``conf.py``).

Every public name of every public module gets an entry; an object re-exported by several
modules (``csdt.CostSensitiveDecisionTreeClassifier`` is ``csdt.tree``'s) is documented once,
under the most specific module that exports it, and the others link to it.
"""

from __future__ import annotations

import importlib
import inspect
import types
import warnings
from pathlib import Path

#: public modules, most specific first: an object is documented under the first that exports it
MODULES = {
    "csboost_plugins": [
        "csboost_plugins.costs", "csboost_plugins.decision_costs", "csboost_plugins.metrics",
        "csboost_plugins.model_selection",
        "csboost_plugins.callback", "csboost_plugins.xgb", "csboost_plugins.lgb", "csboost_plugins.catboost",
        "csboost_plugins.rules",
        "csboost_plugins.tree_protocol", "csboost_plugins.plot", "csboost_plugins",
    ],
    "csdt": [
        "csdt.tree", "csdt.ensemble", "csdt.linear", "csdt.bmr", "csdt.figs", "csdt.cal5", "csdt.datasets",
        "csdt.sampling", "csdt",
    ],
}

TITLES = {
    "csboost_plugins": "csboost_plugins: money metrics, boosting plugins, rules",
    "csdt": "csdt: cost-sensitive trees, ensembles and linear models",
}


def public_names(module):
    """The module's ``__all__`` without submodules (listed as pages of their own)."""
    names = getattr(module, "__all__", None)
    if names is None:
        raise ValueError(f"{module.__name__} has no __all__: the API reference is built from it")
    out = []
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = getattr(module, name)
        if not isinstance(obj, types.ModuleType):
            out.append((name, obj))
    return out


def _available(modname):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(modname)
    except ImportError as exc:  # an optional extra (plot: matplotlib) missing: say so, keep going
        if modname.split(".")[-1] in str(exc):
            return None
        raise


def _kind(obj):
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def build_pages():
    """{page name: rst text} for the API reference (also used by tests)."""
    pages, canonical = {}, {}
    for package, modnames in MODULES.items():
        for modname in modnames:
            module = _available(modname)
            if module is None:
                continue
            documented, linked = [], []
            for name, obj in public_names(module):
                key = id(obj) if _kind(obj) != "data" else (modname, name)
                if key in canonical:
                    linked.append((name, canonical[key], _kind(obj)))
                else:
                    canonical[key] = f"{modname}.{name}"
                    documented.append((name, _kind(obj)))
            title = f"``{modname}``"
            lines = [f".. _api-{modname}:", "", title, "=" * len(title), "", f".. automodule:: {modname}",
                     "   :no-members:", "   :no-index:", "", f".. currentmodule:: {modname}", ""]
            data = [n for n, k in documented if k == "data"]
            objs = [n for n, k in documented if k != "data"]
            if objs:
                lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
                lines += [f"   {n}" for n in objs] + [""]
            for n in data:
                lines += [f".. autodata:: {n}", "   :annotation:", ""]
            if linked:
                lines += ["Also exported here (documented where they are defined):", ""]
                role = {"class": "class", "function": "func", "data": "data"}
                lines += [f"* ``{modname}.{n}``: :{role[k]}:`{target}`" for n, target, k in linked] + [""]
            pages[modname] = "\n".join(lines)
    return pages


def write_api_pages(outdir):
    outdir = Path(outdir)
    outdir.mkdir(exist_ok=True)
    pages = build_pages()
    index = ["API reference", "=============", "",
             "Every public name of both import packages, generated from their ``__all__``.", ""]
    for package, modnames in MODULES.items():
        index += [TITLES[package], "-" * len(TITLES[package]), "", ".. toctree::", "   :maxdepth: 1", ""]
        index += [f"   {m}" for m in modnames if m in pages] + [""]
    for name, text in pages.items():
        _write_if_changed(outdir / f"{name}.rst", text)
    _write_if_changed(outdir / "index.rst", "\n".join(index))


def _write_if_changed(path, text):
    # rewriting an unchanged page would make Sphinx rebuild everything every time
    if not path.exists() or path.read_text() != text:
        path.write_text(text)

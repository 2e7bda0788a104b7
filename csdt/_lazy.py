"""Lazy public names for csdt's subpackages (PEP 562).

A subpackage's estimators import scikit-learn and scipy; its numba kernel modules must
import with numba and numpy alone, because the AOT build (``setup.py``, an isolated build
environment) imports them to compile. So ``csdt.tree`` and the others resolve their public
names on first use instead of importing the estimator module eagerly.
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["lazy_exports"]


def lazy_exports(package: str, module: str, names):
    """``(__getattr__, __dir__)`` for ``package`` resolving ``names`` from ``package + module``."""
    names = tuple(names)

    def __getattr__(name):
        if name in names:
            return getattr(import_module(module, package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(names) | set(vars(import_module(package))))

    return __getattr__, __dir__

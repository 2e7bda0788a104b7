"""sqlglot's expression module for the SQL writers (rule sets, decision rules)."""

from __future__ import annotations


def sqlglot_exp(writer):
    """``sqlglot.exp``; an ImportError naming ``writer`` (e.g. ``"RuleSet.to_sql"``) when sqlglot is missing."""
    try:
        from sqlglot import exp
    except ImportError:  # a dependency of the package: only a broken environment lacks it
        raise ImportError(f"{writer} writes SQL with sqlglot, a dependency of csboost-plugins that this "
                          "environment lacks: pip install 'sqlglot>=28.7'") from None
    return exp

"""Shared numpydoc text: one wording for the parameters many public functions take.

A docstring names fragments by a placeholder alone on its line, ``%(costs)s`` or several in order,
``%(Parameters, X, y, costs)s`` (``Parameters`` is the section header, ``returns_*`` whole Returns
sections); :func:`fill_doc` replaces it when the function or class is defined, indenting every line
like the placeholder, so ``help()``, Sphinx/numpydoc and ``__doc__`` see the whole text. An unknown name is
a ``ValueError`` at import: a typo cannot ship a literal placeholder. Only ``%(name)s`` is touched,
any other ``%`` stays as written. Standard library only (the AOT build imports kernel modules with
numpy and numba alone).
"""

from __future__ import annotations

import re

__all__ = ["DOCS", "fill_doc"]

_X = "X : array-like or DataFrame of shape (n_samples, n_features)\n"

DOCS = {
    "Parameters": "Parameters\n----------",
    # ----------------------------------------------------------------- parameters
    "X": _X + "    Rows.",
    "X_nan": _X + "    Rows (NaN allowed where the model routes missing values).",
    "y": "y : array-like of shape (n_samples,)\n    Binary labels.",
    "y_true": "y_true : array-like of shape (n_samples,)\n"
              "    Binary labels: {0, 1}, booleans, {-1, 1} or any two values (the larger is the positive class).",
    "y_pred": "y_pred : array-like of shape (n_samples,)\n"
              "    0/1 decisions (or y_true's two labels, e.g. ``est.predict(X)``).",
    "y_proba": "y_proba : array-like of shape (n_samples,) or (n_samples, 2)\n"
               "    Scores s_i = P(y=1 | x_i) in [0, 1], or a ``predict_proba`` output.",
    "costs": "fp_cost, fn_cost : float or array-like of shape (n_samples,), optional\n"
             "    Money of a false positive / false negative per row (``C_FP``, ``C_FN``).\n"
             "tp_cost, tn_cost : float or array-like of shape (n_samples,), default=0.0\n"
             "    Money of a true positive / true negative per row (``C_TP``, ``C_TN``).\n"
             "cost_matrix : array-like of shape (n_samples, 4), optional\n"
             "    ``[C_FP, C_FN, C_TP, C_TN]`` per row instead of the four keywords.",
    "pos_label": "pos_label : int, float, bool, str or None, default=None\n"
                 "    The positive class, the label whose miss costs ``fn_cost`` (``classes_[1]``). None:\n"
                 "    1 (True) of 0/1, -1/1 or boolean labels; other labels (``\"fraud\"`` / ``\"ok\"``) are\n"
                 "    refused when costs are given, as the money would depend on their sort order.",
    "sample_weight": "sample_weight : array-like of shape (n_samples,), optional\n"
                     "    Non-negative weights multiplying each row's cost.",
    "y01": "y : array-like of shape (n_samples,)\n    0/1 labels.",
    "p": "p : array-like of shape (n_samples,)\n    P(y=1) per row.",
    "cost_array": "costs : ndarray of shape (n_samples, 4)\n"
                  "    Validated costs ``[C_FP, C_FN, C_TP, C_TN]`` (:func:`csboost_plugins.costs.check_costs`).",
    # the native xgboost / lightgbm helpers (shape (n,) as in their modules)
    "native_costs": "fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n,)\n"
                    "    Money of a false positive, false negative, true positive and true\n"
                    "    negative for each row (currency units); scalars apply to every row.\n"
                    "cost_matrix : array-like of shape (n, 4), optional\n"
                    "    ``[C_FP, C_FN, C_TP, C_TN]`` per row, instead of the four costs.",
    "native_weight": "weight : array-like of shape (n,), optional\n"
                     "    Sample weights; multiply gradient, hessian and metrics.",
    "native_y": "y : array-like of shape (n,)\n"
                "    Two classes: 0/1, -1/1 or booleans (1 / True positive), or any two labels with ``pos_label``.",
    "native_pos_label": "pos_label : int, float, bool, str or None, default None\n"
                        "    The positive class: the label whose miss costs ``fn_cost``. Labels other than 0/1, -1/1\n"
                        "    or booleans (``\"fraud\"`` / ``\"ok\"``) need it, else a ``ValueError``. A pandas y (costs,\n"
                        "    weight) must carry X's index.",
    "lgb_eval_args": "Parameters\n----------\npreds : numpy.ndarray of shape (n,)\n"
                     "    The eval set's raw scores (probabilities with ``preds=\"probability\"``).\n"
                     "dataset : lightgbm.Dataset\n    Eval set carrying its costs.",
    "warn": "warn : bool, default True\n    Emit a ``CostWarning`` for a cost matrix that looks like a mistake.",
    "ax": "ax : matplotlib.axes.Axes, optional\n    Axes to draw on; a new figure when None.",
    # tree renderings (csdt export_text / plot)
    "tree_names": "t : TreeArrays\n    The fitted tree.\nnames : list of str\n    Column names ``t.feature`` indexes.",
    "feature_names": "feature_names : list of str, optional\n    Names to print, one per column.",
    "plot_depth_font": "max_depth : int, optional\n    Draw only the nodes up to this depth.\n"
                       "fontsize : float, default=8\n    Font size of the node boxes.",
    # ----------------------------------------------------------------- Returns sections
    "returns_self": "Returns\n-------\nself : object\n    The fitted estimator.",
    "returns_labels": "Returns\n-------\nndarray of shape (n_samples,)\n    Predicted labels (``classes_``).",
    "returns_proba": "Returns\n-------\nndarray of shape (n_samples, 2)\n    ``[P(y=0), P(y=1)]`` per row.",
}

_PLACEHOLDER = re.compile(r"%\(([^()]*)\)s")


def _fragments(names, where, local):
    parts = []
    for name in (n.strip() for n in names.split(",")):
        text = local.get(name, DOCS.get(name))
        if text is None:
            raise ValueError(f"{where}'s docstring names an unknown fragment {name!r} in %({names})s; "
                             f"known: {', '.join(sorted({*DOCS, *local}))}")
        lines = text.split("\n")
        if parts and len(lines) > 1 and set(lines[1]) == {"-"}:
            parts.append("")  # a section after a section: numpydoc wants a blank line between
        parts.append(text)
    return "\n".join(parts)


def _fill(doc, where, local):
    def substitute(match):
        line = doc[doc.rfind("\n", 0, match.start()) + 1:match.start()]
        if line.strip():
            raise ValueError(f"{where}'s docstring: {match.group(0)} must stand alone on its line")
        text = _fragments(match.group(1), where, local)
        return text.replace("\n", "\n" + line).replace("\n" + line + "\n", "\n\n")

    return _PLACEHOLDER.sub(substitute, doc)


def fill_doc(obj=None, /, **fragments):
    """Replace each ``%(name, ...)s`` line of ``obj.__doc__`` by its fragments, indented like it.

    ``@fill_doc`` uses :data:`DOCS`; ``@fill_doc(name=text, ...)`` adds fragments of one module
    (they win over :data:`DOCS` names).

    Parameters
    ----------
    obj : function or class, optional
        The decorated object; its ``__doc__`` is rewritten in place (None, e.g. under
        ``python -OO``, stays None). Omitted when fragments are given.
    **fragments : str
        Extra fragments, unindented numpydoc text.

    Returns
    -------
    function or class or decorator
        ``obj`` itself, or a decorator doing the same with ``fragments``.

    Raises
    ------
    ValueError
        A placeholder names no fragment, or shares its line with other text.
    """
    if obj is None:
        return lambda target: fill_doc(target, **fragments)
    if obj.__doc__:
        obj.__doc__ = _fill(obj.__doc__, getattr(obj, "__qualname__", repr(obj)), fragments)
    return obj

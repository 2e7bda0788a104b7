"""The scorers behind :func:`csboost_plugins.metrics.make_savings_scorer`: the fold's costs reach the decision too.

scikit-learn's scorers route metadata to the score function only, never to the
estimator's response method, so an estimator that decides each row with its own
costs (``BayesMinimumRiskClassifier.predict(X, fp_cost=..., fn_cost=...)``) would be
scored on its unit-cost decisions while judged with the real money. The scorer
below hands the routed cost keywords to the response method whenever the
estimator's metadata routing says that method consumes them: a plain consumer
requests them with ``set_predict_request(fp_cost=True, ...)`` or by default
(``BayesMinimumRiskClassifier``; the boosters with ``decision="bmr"`` or ``"auto"``),
a router such as ``Pipeline`` when one of its steps does (it then routes them itself).

This is the one place that depends on a private scikit-learn class (``_Scorer``,
see the comment at the import); ``tests/test_scorer_predict_costs.py`` fails if
its contract changes.
"""

from __future__ import annotations

import warnings

import numpy as np

# Private on purpose: ``_Scorer._score(method_caller, estimator, X, y_true, **kwargs)`` is the one hook
# between "call the estimator" and "score the output" that every scikit-learn caller goes through
# (cross_validate, the multimetric scorer's cache, GridSearchCV.score); TunedThresholdClassifierCV also
# rebuilds its curve scorer from ``_score_func``/``_sign``/``_kwargs``, which a public-only wrapper lacks.
from sklearn.metrics._scorer import _Scorer
from sklearn.utils.metadata_routing import MetadataRequest, get_routing_for_object

from .costs import COST_KEYWORDS


def response_costs(estimator, method, params):
    """The cost keywords of ``params`` to pass to ``getattr(estimator, method)``, as its routing requests them.

    Parameters
    ----------
    estimator : object
        A fitted estimator, pipeline or other meta-estimator.
    method : str
        Its response method ("predict", "predict_proba").
    params : dict
        The metadata routed to the scorer (cost keywords, ``sample_weight``).

    Returns
    -------
    dict
        Keyword arguments for the method: empty when it requests no cost.
    """
    costs = {k: v for k, v in params.items() if k in COST_KEYWORDS and v is not None}
    if not costs:
        return {}
    routing = get_routing_for_object(estimator)
    if isinstance(routing, MetadataRequest):
        # a consumer: the scorer is its router, so it resolves aliases (param -> metadata name) itself
        requests = getattr(routing, method).requests if hasattr(routing, method) else {}
        out = {}
        for param, alias in requests.items():
            name = param if alias is True else alias
            if (alias is True or isinstance(alias, str)) and name in costs:
                out[param] = costs[name]
        return out
    # a router (Pipeline, ...): hand over the metadata it consumes by name; it routes them to its steps
    out = {k: costs[k] for k in routing.consumes(method, list(costs))}
    if not out:
        _warn_if_costs_stop_here(estimator, method, costs)
    return out


def _warn_if_costs_stop_here(estimator, method, costs):
    """Warn when a sub-estimator's ``method`` requests the costs but ``estimator``'s own ``method`` routes none.

    ``GridSearchCV.predict(X)`` or ``BaggingClassifier.predict(X)`` take no metadata, so a
    ``BayesMinimumRiskClassifier`` inside them decides with unit costs: say so rather than
    score those decisions silently.
    """
    if not hasattr(estimator, "get_params"):
        return
    for name, sub in estimator.get_params(deep=True).items():
        if sub is estimator or not hasattr(sub, "get_metadata_routing") or isinstance(sub, type):
            continue
        if get_routing_for_object(sub).consumes(method, list(costs)):
            warnings.warn(
                f"{type(sub).__name__}.{method} (parameter {name!r} of {type(estimator).__name__}) requests the "
                f"costs, but {type(estimator).__name__}.{method} routes no metadata: the scorer cannot hand them "
                f"on, so it scores {type(estimator).__name__}'s decisions made without the rows' costs. Score the "
                "inner estimator itself (e.g. a search's best_estimator_) or a Pipeline instead.",
                UserWarning, stacklevel=4)
            return


def _is_default(pos_label):
    """``pos_label`` None (the last class, scikit-learn's default) or 1 (1.0 and True too, not "1")."""
    return pos_label is None or (not isinstance(pos_label, (str, bytes)) and pos_label == 1)


def pos_label_score(estimator, output, pos_label, method):
    """The score of ``pos_label`` in ``getattr(estimator, method)(X)``'s ``output``, read with ``estimator.classes_``.

    As scikit-learn's scorers: an (n, 2) ``predict_proba`` gives the column of
    ``pos_label`` in ``classes_`` (not column 1 blindly); a ``decision_function`` is
    negated when ``pos_label`` is ``classes_[0]``. An estimator without ``classes_``
    keeps column 1 / the sign as is for ``pos_label`` None or 1 (its 0/1 convention) and is a
    ``ValueError`` otherwise.

    Parameters
    ----------
    estimator : object
        A fitted binary classifier.
    output : array-like of shape (n_samples, 2) or (n_samples,)
        Its ``predict_proba`` or ``decision_function`` output.
    pos_label : int, float, bool, str or None
        The positive class; None: ``classes_[-1]``, as scikit-learn's scorers.
    method : {"predict_proba", "decision_function"}
        The method that gave ``output``.

    Returns
    -------
    ndarray of shape (n_samples,)
        P(y = pos_label), or a score higher for ``pos_label``.

    Raises
    ------
    ValueError
        When ``pos_label`` is not one of the estimator's two ``classes_``.
    """
    out = np.asarray(output)
    proba = method == "predict_proba"
    if proba and not (out.ndim == 2 and out.shape[1] == 2) and out.ndim != 1:
        raise ValueError(f"{type(estimator).__name__}.predict_proba gave shape {out.shape}: a binary classifier's "
                         "(n, 2) output is needed")
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        if not _is_default(pos_label):
            raise ValueError(f"pos_label={pos_label} needs the estimator's classes_ to find its column: "
                             f"{type(estimator).__name__} has none")
        return out[:, 1] if out.ndim == 2 else out
    labels = np.asarray(classes).tolist()
    if pos_label is None and len(labels) == 2:  # scikit-learn's default: the last class
        pos_label = labels[-1]
    hits = [i for i, label in enumerate(labels) if label == pos_label]  # Python ==: "1" != 1 == 1.0 == True
    if len(hits) != 1 or len(labels) != 2:
        raise ValueError(f"pos_label={pos_label} is not a valid label: It should be one of {labels} "
                         f"({type(estimator).__name__}.classes_)")
    if out.ndim == 2:
        return out[:, hits[0]]
    # 1-D: P(classes_[1]) or a decision function for classes_[1], as scikit-learn's binary outputs
    return (1.0 - out if proba else -out) if hits[0] == 0 else out


class CostRoutingScorer(_Scorer):
    """scikit-learn's ``_Scorer`` whose response method also receives the routed costs it requests.

    Without such a request it is exactly ``make_scorer(score_func, response_method=...)``
    (sklearn's prediction cache included); with one, the method is called directly with
    the fold's costs (the multimetric cache keys outputs by method name only, so a
    cost-free output of another scorer must not be reused), and a ``predict_proba``
    output is reduced to the column ``estimator.classes_`` gives the scorer's
    ``pos_label``, as scikit-learn does on the cost-free path.
    """

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        costs = response_costs(estimator, self._response_method, kwargs)
        if not costs:
            return super()._score(method_caller, estimator, X, y_true, **kwargs)
        y_pred = getattr(estimator, self._response_method)(X, **costs)
        if self._response_method == "predict_proba":
            y_pred = pos_label_score(estimator, y_pred, self._get_pos_label(), "predict_proba")
        return self._sign * self._score_func(y_true, y_pred, **{**self._kwargs, **kwargs})


def cost_routing_scorer(score_func, response_method, pos_label=None):
    """A :class:`CostRoutingScorer` of ``score_func`` (greater is better), as ``make_scorer`` would build it.

    ``pos_label`` other than the default None becomes a scorer keyword, as in
    ``make_scorer(score_func, response_method=..., pos_label=...)``: scikit-learn then
    reads the ``predict_proba`` column of ``pos_label`` from ``estimator.classes_`` and
    ``score_func`` receives it (None keeps ``make_scorer(score_func)``'s repr: the last of
    ``classes_`` is scored, and ``score_func``'s own default rule reads the labels).

    Parameters
    ----------
    score_func : callable
        ``score_func(y_true, y_pred, **costs_and_weights)``.
    response_method : {"predict", "predict_proba"}
        The estimator's method whose output is scored.
    pos_label : int, float, bool, str or None, default=None
        The positive class; ``score_func`` must take a ``pos_label`` keyword.

    Returns
    -------
    CostRoutingScorer
    """
    kwargs = {} if pos_label is None else {"pos_label": pos_label}
    return CostRoutingScorer(score_func, 1, kwargs, response_method)

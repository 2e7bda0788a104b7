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


class CostRoutingScorer(_Scorer):
    """scikit-learn's ``_Scorer`` whose response method also receives the routed costs it requests.

    Without such a request it is exactly ``make_scorer(score_func, response_method=...)``
    (sklearn's prediction cache included); with one, the method is called directly with
    the fold's costs (the multimetric cache keys outputs by method name only, so a
    cost-free output of another scorer must not be reused).
    """

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        costs = response_costs(estimator, self._response_method, kwargs)
        if not costs:
            return super()._score(method_caller, estimator, X, y_true, **kwargs)
        y_pred = getattr(estimator, self._response_method)(X, **costs)
        return self._sign * self._score_func(y_true, y_pred, **{**self._kwargs, **kwargs})


def cost_routing_scorer(score_func, response_method):
    """A :class:`CostRoutingScorer` of ``score_func`` (greater is better), as ``make_scorer`` would build it.

    Parameters
    ----------
    score_func : callable
        ``score_func(y_true, y_pred, **costs_and_weights)``.
    response_method : {"predict", "predict_proba"}
        The estimator's method whose output is scored.

    Returns
    -------
    CostRoutingScorer
    """
    return CostRoutingScorer(score_func, 1, {}, response_method)

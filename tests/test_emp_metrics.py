"""Expected maximum profit metrics (EMPC / MPC for churn, EMPCS / MPCS for credit scoring).

The closed forms over the ROC convex hull are checked against brute force on the papers' definitions:
for every value of the acceptance rate / loss given default on a dense grid, the best of all
thresholds of the empirical ROC curve (scikit-learn's ``roc_curve``), integrated numerically.
"""

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_curve
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csboost_plugins.metrics import (
    empc_score,
    empcs_score,
    make_empc_scorer,
    make_empcs_scorer,
    mpc_score,
    mpcs_score,
)

GRID = np.linspace(0.0, 1.0, 200_001)


def _roc(y, s):
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    pi = np.mean(y)
    return tpr, fpr, pi, pi * tpr + (1 - pi) * fpr


def _best_over_roc(profit_of, params):
    """For each parameter value: the best profit over all ROC points and the alert rate where it is reached."""
    best, where = [], []
    for chunk in np.array_split(params, max(1, params.size // 20_000)):
        p = profit_of(chunk[:, None])
        best.append(p.max(axis=1))
        where.append(p.argmax(axis=1))
    return np.concatenate(best), np.concatenate(where)


def _churn_profit(y, s, clv, d, f):
    tpr, fpr, pi, rates = _roc(y, s)
    delta, phi = d / clv, f / clv
    return (lambda g: clv * ((g * (1 - delta) - phi) * pi * tpr - (delta + phi) * (1 - pi) * fpr)), rates


def _credit_profit(y, s, roi):
    tpr, fpr, pi, rates = _roc(y, s)
    return (lambda lam: lam * pi * tpr - roi * (1 - pi) * fpr), rates


def brute_empc(y, s, alpha=6, beta=14, clv=200, d=10, f=1):
    profit, rates = _churn_profit(y, s, clv, d, f)
    best, where = _best_over_roc(profit, GRID)
    h = stats.beta.pdf(GRID, alpha, beta)
    return integrate.trapezoid(best * h, GRID), integrate.trapezoid(rates[where] * h, GRID)


def brute_empcs(y, s, p0=0.55, p1=0.1, roi=0.2644):
    profit, rates = _credit_profit(y, s, roi)
    best, where = _best_over_roc(profit, GRID)
    ends, ends_at = _best_over_roc(profit, np.array([0.0, 1.0]))
    value = (1 - p0 - p1) * integrate.trapezoid(best, GRID) + p0 * ends[0] + p1 * ends[1]
    rate = (1 - p0 - p1) * integrate.trapezoid(rates[where], GRID) + p0 * rates[ends_at[0]] + p1 * rates[ends_at[1]]
    return value, rate


def _data(seed, n=300, rate=0.2, ties=False):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rate).astype(int)
    s = 1.2 * y + rng.normal(size=n)
    return y, (np.round(s, 1) if ties else s)


# ----------------------------------------------------------------- (1) closed form == brute force


@pytest.mark.parametrize("seed, ties", [(0, False), (1, True), (2, False)])
def test_empc_equals_numeric_integration(seed, ties):
    y, s = _data(seed, ties=ties)
    value, rate = empc_score(y, s, return_threshold=True)
    ref_value, ref_rate = brute_empc(y, s)
    assert value == pytest.approx(ref_value, rel=1e-6)
    assert rate == pytest.approx(ref_rate, abs=1e-4)  # a step function on the grid: first-order accurate


def test_empc_equals_numeric_integration_other_parameters():
    y, s = _data(3, rate=0.4)
    kw = dict(alpha=2.0, beta=3.0, clv=50.0, incentive_cost=5.0, contact_cost=2.0)
    ref, _ = brute_empc(y, s, alpha=2, beta=3, clv=50, d=5, f=2)
    assert empc_score(y, s, **kw) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("seed, ties", [(0, False), (1, True), (4, False)])
def test_empcs_equals_numeric_integration(seed, ties):
    y, s = _data(seed, rate=0.3, ties=ties)
    value, rate = empcs_score(y, s, return_threshold=True)
    ref_value, ref_rate = brute_empcs(y, s)
    assert ref_value > 0  # the comparison is about a profitable model, not two zeros
    assert value == pytest.approx(ref_value, rel=1e-6)
    assert rate == pytest.approx(ref_rate, abs=1e-4)


def test_empcs_equals_numeric_integration_other_parameters():
    y, s = _data(5, rate=0.5)
    ref, _ = brute_empcs(y, s, p0=0.2, p1=0.3, roi=0.5)
    assert empcs_score(y, s, success_rate=0.2, default_rate=0.3, roi=0.5) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("seed, ties", [(0, False), (1, True)])
def test_mpc_and_mpcs_equal_the_best_threshold(seed, ties):
    y, s = _data(seed, rate=0.3, ties=ties)
    profit, rates = _churn_profit(y, s, 200, 10, 1)
    p = profit(0.3)
    value, rate = mpc_score(y, s, return_threshold=True)
    assert value == pytest.approx(p.max(), rel=1e-12)
    assert rate == pytest.approx(rates[np.argmax(p)], rel=1e-12)
    profit, rates = _credit_profit(y, s, 0.2644)
    p = profit(0.275)
    value, rate = mpcs_score(y, s, return_threshold=True)
    assert value == pytest.approx(p.max(), rel=1e-12)
    assert rate == pytest.approx(rates[np.argmax(p)], rel=1e-12)


# ----------------------------------------------------------------- (2) perfect and random classifiers


def test_perfect_classifier_closed_forms():
    y = np.r_[np.zeros(70, int), np.ones(30, int)]
    s = np.r_[np.linspace(0, 0.4, 70), np.linspace(0.6, 1, 30)]
    pi, clv, delta, phi = 0.3, 200.0, 10 / 200, 1 / 200
    g0 = phi / (1 - delta)  # below it contacting a churner does not pay
    h = stats.beta(6, 14).pdf
    expected = clv * pi * integrate.quad(lambda g: (g * (1 - delta) - phi) * h(g), g0, 1, epsabs=1e-13)[0]
    value, rate = empc_score(y, s, return_threshold=True)
    assert value == pytest.approx(expected, rel=1e-9)
    assert rate == pytest.approx(pi * stats.beta(6, 14).sf(g0), rel=1e-9)
    assert mpc_score(y, s) == pytest.approx(clv * pi * (0.3 * (1 - delta) - phi), rel=1e-12)
    # credit: every defaulter rejected at no cost, so the profit is pi * E[lambda]
    assert empcs_score(y, s) == pytest.approx(pi * (0.1 + 0.35 / 2), rel=1e-12)
    assert mpcs_score(y, s) == pytest.approx(pi * 0.275, rel=1e-12)


def test_random_classifier_only_trivial_policies():
    # one score for all: the hull is the diagonal, so only "nobody" or "everybody" can be chosen
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    s = np.full(100, 0.5)
    pi, clv, delta, phi = 0.4, 200.0, 0.05, 0.005
    h = stats.beta(6, 14).pdf
    everybody = lambda g: clv * ((g * (1 - delta) - phi) * pi - (delta + phi) * (1 - pi))  # noqa: E731
    expected = integrate.quad(lambda g: max(0.0, everybody(g)) * h(g), 0, 1, points=[0.1], epsabs=1e-13)[0]
    assert expected > 0
    assert empc_score(y, s) == pytest.approx(expected, rel=1e-7)
    assert mpc_score(y, s) == pytest.approx(max(0.0, everybody(0.3)), rel=1e-12)
    # credit with 40% defaulters: rejecting everybody pays once lambda > roi * 0.6 / 0.4
    lam0 = 0.2644 * 0.6 / 0.4
    expected = 0.35 * integrate.quad(lambda lam: lam * pi - 0.2644 * (1 - pi), lam0, 1)[0] + 0.1 * (pi - 0.2644 * 0.6)
    assert empcs_score(y, s) == pytest.approx(expected, rel=1e-12)
    # with few defaulters nothing beats lending to everybody
    assert empcs_score(np.r_[np.zeros(95, int), np.ones(5, int)], s) == 0.0


# ----------------------------------------------------------------- (3) only the order of the scores counts


@pytest.mark.parametrize("func", [empc_score, mpc_score, empcs_score, mpcs_score])
def test_strictly_increasing_transform_keeps_the_value(func):
    y, s = _data(6, ties=True)
    value = func(y, s, return_threshold=True)
    assert func(y, np.exp(3 * s) + 7, return_threshold=True) == pytest.approx(value, rel=1e-12)
    assert func(y, stats.rankdata(s), return_threshold=True) == \
        pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("func", [empc_score, mpc_score, empcs_score, mpcs_score])
def test_labels_pos_label_and_predict_proba_columns(func):
    y, s = _data(7)
    p = 1 / (1 + np.exp(-s))
    value = func(y, p)
    labels = np.where(y == 1, "churn", "stay")
    assert func(labels, p, pos_label="churn") == pytest.approx(value, rel=1e-12)
    # predict_proba columns follow the sorted labels: "churn" is column 0
    assert func(labels, np.c_[p, 1 - p], pos_label="churn") == pytest.approx(value, rel=1e-12)
    assert func(y, np.c_[1 - p, p]) == pytest.approx(value, rel=1e-12)
    # the other class as positive is another campaign, not the same number
    assert func(labels, 1 - p, pos_label="stay") != pytest.approx(value, rel=1e-6)


# ----------------------------------------------------------------- (4) bad input


@pytest.mark.parametrize("func", [empc_score, mpc_score, empcs_score, mpcs_score])
def test_bad_labels_and_scores(func):
    with pytest.raises(ValueError, match="y_true holds one class"):
        func([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="y_true"):
        func([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="y_score has 2 rows but y_true has 3"):
        func([0, 1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="y_score contains NaN"):
        func([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="y_score contains inf"):
        func([0, 1, 1], [0.1, np.inf, 0.3])
    with pytest.raises(ValueError, match="pos_label"):
        func(["a", "b", "b"], [0.1, 0.2, 0.3])


@pytest.mark.parametrize("func, kw, match", [
    (empc_score, dict(alpha=0), "alpha and beta must be > 0"),
    (empc_score, dict(beta=-1), "alpha and beta must be > 0"),
    (empc_score, dict(clv=0), "clv must be > 0"),
    (empc_score, dict(incentive_cost=-1), "incentive_cost and contact_cost must be >= 0"),
    (empc_score, dict(incentive_cost=200), "incentive_cost must be below clv"),
    (empc_score, dict(contact_cost=np.nan), "contact_cost must be finite"),
    (mpc_score, dict(accept_rate=1.5), r"accept_rate must lie in \[0, 1\]"),
    (mpc_score, dict(contact_cost=-0.5), "incentive_cost and contact_cost must be >= 0"),
    (empcs_score, dict(success_rate=-0.1), r"success_rate must lie in \[0, 1\]"),
    (empcs_score, dict(default_rate=2), r"default_rate must lie in \[0, 1\]"),
    (empcs_score, dict(success_rate=0.6, default_rate=0.5), "success_rate \\+ default_rate must be <= 1"),
    (empcs_score, dict(roi=0), "roi must be > 0"),
    (mpcs_score, dict(loan_lost_rate=np.inf), "loan_lost_rate must be finite"),
    (mpcs_score, dict(roi=-1), "roi must be > 0"),
])
def test_bad_parameters_named(func, kw, match):
    with pytest.raises(ValueError, match=match):
        func([0, 1, 1, 0], [0.1, 0.2, 0.3, 0.4], **kw)


def test_non_numeric_parameter_is_a_type_error():
    with pytest.raises(TypeError, match="clv must be a number"):
        empc_score([0, 1], [0.1, 0.2], clv="200")


# ----------------------------------------------------------------- (5) bundled data and scorers


@pytest.mark.parametrize("loader, func, mp", [("load_churn", empc_score, mpc_score),
                                              ("load_creditscoring1", empcs_score, mpcs_score)])
def test_bundled_sets_with_a_simple_model(loader, func, mp):
    import csdt.datasets

    data = getattr(csdt.datasets, loader)()
    X, y = data.data.select_dtypes("number").fillna(0).to_numpy()[:20_000], np.asarray(data.target)[:20_000]
    half = y.shape[0] // 2
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:half], y[:half])
    p = model.predict_proba(X[half:])[:, 1]
    value, rate = func(y[half:], p, return_threshold=True)
    best, best_rate = mp(y[half:], p, return_threshold=True)
    assert np.isfinite(value) and value >= 0 and 0 <= rate <= 1
    assert np.isfinite(best) and best >= 0 and 0 <= best_rate <= 1
    # the model ranks better than chance, so it beats the constant score
    assert value >= func(y[half:], np.zeros_like(p))


def test_scorers_in_a_grid_search():
    y, s = _data(8, n=400, rate=0.3)
    X = np.c_[s, np.random.default_rng(8).normal(size=s.size)]
    for make, func in [(make_empc_scorer, empc_score), (make_empcs_scorer, empcs_score)]:
        scorer = make(pos_label=1)
        model = LogisticRegression().fit(X, y)
        assert scorer(model, X, y) == pytest.approx(func(y, model.predict_proba(X)[:, 1]), rel=1e-12)
        search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=scorer, cv=3).fit(X, y)
        assert np.isfinite(search.best_score_)
    # string labels: the pos_label column of predict_proba is scored
    labels = np.where(y == 1, "churn", "stay")
    model = LogisticRegression().fit(X, labels)
    scorer = make_empc_scorer(pos_label="churn", clv=100.0)
    assert scorer(model, X, labels) == pytest.approx(
        empc_score(labels, model.predict_proba(X)[:, 0], pos_label="churn", clv=100.0), rel=1e-12)


def test_scorer_checks_its_parameters_when_built():
    with pytest.raises(ValueError, match="roi must be > 0"):
        make_empcs_scorer(roi=-1)
    with pytest.raises(TypeError):
        make_empc_scorer(gamma=0.3)


def test_hull_prefilter_keeps_every_vertex():
    # the vectorised pre-filter only shrinks the monotone chain's input: any number of passes, same hull
    from csboost_plugins._emp import _drop_inner_points, _upper_hull

    y, s = _data(9, n=5000, rate=0.1)
    order = np.argsort(-s)
    tp = np.r_[0, np.cumsum(y[order])]
    fp = np.r_[0, np.cumsum(1 - y[order])]
    hulls = [_upper_hull(*_drop_inner_points(fp, tp, passes=k)) for k in (0, 1, 3, 64)]
    assert all(h == hulls[0] for h in hulls[1:])
    assert len(hulls[0][0]) < 200  # a hull, not the raw curve

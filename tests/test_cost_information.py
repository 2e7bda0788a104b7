"""The cost-dependent information measure of the CAL5_OC paper (section 2, eqs. 2-12).

Reference values are computed here from the paper's own definitions (B_kj,
B_xi, b, p^c of eqs. 2-5, I^c of eq. 10) with the per-value mean costs
c_kj(x_i), and from scipy / scikit-learn for Shannon's quantities: the kernels
work with cost sums instead, so agreement is a real check.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import entropy
from sklearn.metrics import mutual_info_score

from csdt import cost_transinformation
from csdt._cost_information import cost_entropy_binary, cost_entropy_from_sums, cost_transinformation_table


def _paper_quantities(x, k, cost):
    """p^c(k_j), p^c(x_i), p^c(k_j | x_i), b (both ways, eq. 6) and I^c_x from eqs. 2-5 and 10."""
    xs, ks = np.unique(x), np.unique(k)
    n = len(x)
    p_x = np.array([np.mean(x == v) for v in xs])
    p_k = np.array([np.mean(k == j) for j in ks])
    p_k_given_x = np.array([[np.mean(k[x == v] == j) for j in ks] for v in xs])
    p_x_given_k = np.array([[np.mean(x[k == j] == v) for j in ks] for v in xs])
    # c_kj(x_i): mean cost of class-j examples with value x_i (0 where there are none)
    c = np.zeros((len(xs), len(ks)))
    for i, v in enumerate(xs):
        for j, kk in enumerate(ks):
            sel = (x == v) & (k == kk)
            c[i, j] = cost[sel].mean() if sel.any() else 0.0
    B_k = (c * p_x_given_k).sum(axis=0)                      # eq. 3
    B_x = (c * p_k_given_x).sum(axis=1)                      # eq. 4
    b_k = (B_k * p_k).sum()                                  # eq. 3
    b_x = (B_x * p_x).sum()                                  # eq. 6
    pc_k = B_k * p_k / b_k                                   # eq. 2
    pc_k_given_x = c * p_k_given_x / B_x[:, None]           # eq. 4
    pc_x = B_x * p_x / b_x                                   # eq. 5

    def h(p):
        p = p[p > 0]
        return -(p * np.log2(p)).sum()

    I_c = h(pc_k) - sum(pc_x[i] * h(pc_k_given_x[i]) for i in range(len(xs)))  # eq. 10
    assert n > 0
    return dict(pc_k=pc_k, pc_x=pc_x, pc_k_given_x=pc_k_given_x, b_k=b_k, b_x=b_x, I_c=I_c, B_k=B_k, p_k=p_k)


def _random_problem(rng, n=300, m=5, n_classes=3):
    x = rng.integers(0, m, size=n)
    k = (x + rng.integers(0, n_classes, size=n) * (rng.random(n) < 0.6)) % n_classes
    cost = rng.gamma(2.0, 1.5, size=n) * (1 + k)
    return x, k, cost


def test_eq6_normalisation_and_probabilities_sum_to_one():
    rng = np.random.default_rng(0)
    x, k, cost = _random_problem(rng)
    q = _paper_quantities(x, k, cost)
    assert q["b_k"] == pytest.approx(q["b_x"], rel=1e-12)                 # eq. 6
    assert q["b_k"] == pytest.approx(cost.mean(), rel=1e-12)               # b is the mean cost
    assert q["pc_k"].sum() == pytest.approx(1.0, abs=1e-12)
    assert q["pc_x"].sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(q["pc_k_given_x"].sum(axis=1), 1.0, atol=1e-12)
    # the cost-share estimates (eq. 26) used by the kernels equal the paper's p^c
    shares = np.array([cost[k == j].sum() for j in np.unique(k)]) / cost.sum()
    np.testing.assert_allclose(shares, q["pc_k"], rtol=1e-12)


def test_eq10_kernel_matches_paper_definitions():
    rng = np.random.default_rng(1)
    for n_classes in (2, 3, 4):
        x, k, cost = _random_problem(rng, n_classes=n_classes)
        q = _paper_quantities(x, k, cost)
        assert cost_transinformation(x, k, cost) == pytest.approx(q["I_c"], rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("c", [1.0, 0.37, 250.0])
def test_proposition_1a_equal_costs_give_shannon(c):
    rng = np.random.default_rng(2)
    x, k, _ = _random_problem(rng, n=500, m=7, n_classes=3)
    cost = np.full(len(x), c)
    shannon_info = mutual_info_score(x, k) / np.log(2)  # nats -> bits
    assert cost_transinformation(x, k, cost) == pytest.approx(shannon_info, rel=1e-10)
    assert cost_transinformation(x, k) == pytest.approx(shannon_info, rel=1e-10)
    counts = np.bincount(k).astype(float)
    assert cost_entropy_from_sums(c * counts) == pytest.approx(entropy(counts, base=2), rel=1e-12)
    assert cost_entropy_binary(c * 3.0, c * 5.0) == pytest.approx(entropy([3, 5], base=2), rel=1e-12)


def test_proposition_1b_unequal_class_costs_reduce_entropy():
    # two classes, p(k1) >= 0.5 and B_k1 > B_k2: p^c(k1) > p(k1) and H^c < H (eqs. 11-12)
    n1, n2 = 60, 40
    for ratio in (1.5, 3.0, 20.0):
        w1, w2 = ratio * n1, 1.0 * n2
        assert w1 / (w1 + w2) > n1 / (n1 + n2)
        assert cost_entropy_binary(w1, w2) < entropy([n1, n2], base=2)
    # eq. 13: relative cost eps / c -> 0 gives H^c -> 0
    assert cost_entropy_binary(1e12 * n1, n2) < 1e-8


def test_binary_and_sum_kernels_agree():
    rng = np.random.default_rng(3)
    for _ in range(50):
        w0, w1 = rng.gamma(1.0, 2.0, size=2)
        assert cost_entropy_binary(w0, w1) == pytest.approx(cost_entropy_from_sums(np.array([w0, w1])), rel=1e-12)
    assert cost_entropy_binary(0.0, 0.0) == 0.0
    assert cost_entropy_binary(0.0, 4.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.floats(0.01, 100.0)), min_size=2, max_size=60))
def test_transinformation_is_a_mutual_information(rows):
    x, k, c = (np.array(v) for v in zip(*rows))
    value = cost_transinformation(x, k, c)
    # I^c is Shannon's mutual information of the joint p^c(x_i, k_j) = w_ij / W: bounded by both entropies
    table = np.zeros((4, 3))
    np.add.at(table, (x, k), c)
    assert -1e-12 <= value
    assert value <= cost_entropy_from_sums(table.sum(axis=0)) + 1e-9
    assert value <= cost_entropy_from_sums(table.sum(axis=1)) + 1e-9
    assert value == pytest.approx(cost_transinformation_table(table), abs=1e-12)


def test_irrelevant_attribute_becomes_relevant_with_costs():
    # Remark 1: x carries no class information, but its values carry different costs
    x = np.repeat([0, 1], 200)
    k = np.tile([0, 1], 200)
    assert cost_transinformation(x, k) == pytest.approx(0.0, abs=1e-12)
    cost = np.where(x == 0, np.where(k == 0, 3.0, 1.0), np.where(k == 0, 1.0, 3.0))
    assert cost_transinformation(x, k, cost) > 0.1


def test_cost_transinformation_bad_input():
    with pytest.raises(ValueError, match="x_binned has 3 values but y has 2"):
        cost_transinformation([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="cost must have one value per example"):
        cost_transinformation([0, 1, 1], [0, 1, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN or infinite"):
        cost_transinformation([0, 1, 1], [0, 1, 1], [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match=">= 0"):
        cost_transinformation([0, 1, 1], [0, 1, 1], [1.0, -1.0, 2.0])
    with pytest.raises(TypeError, match="cost must be numeric"):
        cost_transinformation([0, 1, 1], [0, 1, 1], ["a", "b", "c"])
    with pytest.raises(ValueError, match="empty"):
        cost_transinformation([], [])

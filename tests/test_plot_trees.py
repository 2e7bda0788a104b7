"""One ``export_text`` and one ``plot`` for every tree model: what they say is what the
fitted arrays (``tree_`` / ``trees_``, :class:`TreeArrays`) hold, for CSDT, FIGS, FIGU and CAL5_OC
fitted on the bundled data. The texts are parsed back into trees (and probe points walked through
the fitted arrays), the plots' boxes read back from the axes (matplotlib Agg)."""

import re
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib", reason="pip install 'csboost-plugins[plot]'")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402

from csboost_plugins.tree_protocol import TreeArrays, apply_tree_arrays  # noqa: E402
from csdt import (  # noqa: E402
    CAL5OCClassifier,
    CostSensitiveDecisionTreeClassifier,
    FIGSClassifier,
    FIGUClassifier,
)
from csdt.cal5._builder import multiway_view  # noqa: E402
from csdt.datasets import load_churn, load_creditscoring2  # noqa: E402

NUM = r"(-?(?:inf|\d+(?:\.\d*)?))"


@pytest.fixture(scope="module")
def credit():
    d = load_creditscoring2()
    X = d.data.iloc[:3000].copy()
    rng = np.random.default_rng(0)
    X = X.mask(rng.random(X.shape) < 0.05)  # missing values: splits send them left or right
    return X, d.target[:3000], d.cost_matrix[:3000]


@pytest.fixture(scope="module")
def models(credit):
    X, y, C = credit
    Xf = X.fillna(X.median())  # FIGS takes NaN too; filled here so CAL5/FIGS see the same table
    c = load_churn()
    return {
        "csdt": CostSensitiveDecisionTreeClassifier(max_depth=4, min_gain=0.0).fit(X, y, cost_matrix=C),
        "figs": FIGSClassifier(max_rules=9).fit(Xf, y, cost_matrix=C),
        "figu": FIGUClassifier(max_rules=9, max_trees=3).fit(X, y, cost_matrix=C),
        "cal5": CAL5OCClassifier(merge_leaves=False).fit(c.data.iloc[:4000], c.target[:4000],
                                                        cost_matrix=c.cost_matrix[:4000]),
    }


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _trees(model):
    return model.trees_ if hasattr(model, "trees_") else [model.tree_]


def _names(model):
    return [str(c) for c in model.feature_names_in_]


# ------------------------------------------------------------------------------------ parsing
def _parse_binary(lines):
    """``|--- ...`` lines back into nested dicts: splits {name, op, thr, nan, left, right}, leaves {text}."""
    pos = [0]

    def rec(depth):
        line = lines[pos[0]]
        prefix = "|   " * depth + "|--- "
        assert line.startswith(prefix), (depth, line)
        body = line[len(prefix):]
        pos[0] += 1
        m = re.fullmatch(r"(\S+) (<=|< ) " + NUM + r"( \(NaN\))?", body)
        if m is None:
            return {"text": body}
        name, op, thr, nan_left = m.group(1), m.group(2), float(m.group(3)), m.group(4) is not None
        left = rec(depth + 1)
        m2 = re.fullmatch(r"(\S+) (> |>=) " + NUM + r"( \(NaN\))?", lines[pos[0]][len(prefix):])
        assert m2 is not None and m2.group(1) == name and float(m2.group(3)) == thr, lines[pos[0]]
        assert (m2.group(4) is not None) != nan_left, "exactly one side says where NaN goes"
        pos[0] += 1
        return {"name": name, "op": op.strip(), "thr": thr, "nan_left": nan_left, "left": left,
                "right": rec(depth + 1)}

    tree = rec(0)
    assert pos[0] == len(lines), "every line belongs to the tree"
    return tree


def _leaf_numbers(text):
    return {k: float(v) for k, v in re.findall(r"(p|n|cost|value|precision|weight)[= ]([+-]?\d+(?:\.\d*)?(?:e[+-]?\d+)?)",
                                               text)}


def _check_leaf(model, t, k, text, decimals):
    tol = 0.5 * 10.0 ** -decimals + 1e-12
    nums = _leaf_numbers(text)
    if isinstance(model, CostSensitiveDecisionTreeClassifier):
        assert re.match(rf"class {t.label[k]}\b", text), text
        assert nums["p"] == pytest.approx(t.value[k], abs=tol)
        assert nums["n"] == t.n_node_samples[k]
        assert nums["cost"] == pytest.approx(t.node_cost[k], abs=tol)
    elif isinstance(model, FIGUClassifier):
        assert nums["precision"] == pytest.approx(t.value[k], abs=tol)
        assert nums["weight"] == pytest.approx(t.n_node_samples[k], rel=1e-5)
        assert ("covers" in text) == (t.label[k] == 1)
    else:
        assert nums["value"] == pytest.approx(t.value[k], abs=tol)
        assert nums["weight"] == pytest.approx(t.n_node_samples[k], rel=1e-5)


def _probe(bounds, n_features, names):
    """A row inside every interval of a path: (lo, hi] per feature, midpoint or 1 past a finite end."""
    x = np.zeros((1, n_features))
    for name, (lo, hi) in bounds.items():
        j = names.index(name)
        x[0, j] = (lo + hi) / 2 if np.isfinite(lo) and np.isfinite(hi) else (
            hi - 1.0 if np.isfinite(hi) else lo + 1.0 if np.isfinite(lo) else 0.0)
    return x


def _walk_binary(model, t, parsed, names, decimals):
    """Compare a parsed text tree with ``t`` node by node; a probe row per leaf reaches that leaf."""
    tol = 0.5 * 10.0 ** -decimals + 1e-12
    leaves = []

    def rec(node, k, bounds):
        if "text" in node:
            assert t.children_left[k] == -1, f"the text has a leaf where node {k} splits"
            _check_leaf(model, t, k, node["text"], decimals)
            leaves.append(k)
            got = apply_tree_arrays(t, _probe(bounds, model.n_features_in_, names))[0]
            assert got == k, f"a row inside the leaf's text intervals reaches node {got}, not {k}"
            return
        assert t.children_left[k] != -1, f"the text splits where node {k} is a leaf"
        assert node["name"] == names[t.feature[k]]
        assert node["thr"] == pytest.approx(t.threshold[k], abs=tol), f"threshold of node {k}"
        assert node["nan_left"] == bool(t.missing_left[k])
        lo, hi = bounds.get(node["name"], (-np.inf, np.inf))
        thr = t.threshold[k]  # exact, so probes sit inside the fitted intervals
        rec(node["left"], t.children_left[k], {**bounds, node["name"]: (lo, min(hi, thr))})
        rec(node["right"], t.children_right[k], {**bounds, node["name"]: (max(lo, thr), hi)})

    rec(parsed, 0, {})
    assert sorted(leaves) == sorted(np.flatnonzero(t.is_leaf)), "every leaf is printed once"


@pytest.mark.parametrize("name", ["csdt", "figs", "figu"])
@pytest.mark.parametrize("decimals", [3, 7])
def test_export_text_is_the_tree_arrays(models, name, decimals):
    model = models[name]
    text = model.export_text(decimals=decimals)
    assert text.endswith("\n")
    names = _names(model)
    trees = _trees(model)
    if name == "csdt":
        blocks = [text.splitlines()]
    else:  # one block per tree, in order
        heads = [i for i, line in enumerate(text.splitlines()) if line.startswith("Tree #")]
        lines = text.splitlines()
        assert [lines[i] for i in heads] == [f"Tree #{k}" for k in range(len(trees))]
        blocks = [lines[a + 1:b] for a, b in zip(heads, [*heads[1:], len(lines)])]
    for t, block in zip(trees, blocks):
        assert isinstance(t, TreeArrays)
        _walk_binary(model, t, _parse_binary(block), names, decimals)
    if name == "csdt":  # some split sends NaN left and some right, so the (NaN) marks are read
        inner = ~trees[0].is_leaf
        assert trees[0].missing_left[inner].any()


def test_figs_str_is_export_text_and_leaf_values_add_up(models, credit):
    model = models["figs"]
    assert str(model) == str(model).splitlines()[0] + "\n" + model.export_text().rstrip("\n")
    assert "sum of leaf values" in str(model).splitlines()[0]
    text = model.export_text(decimals=10)
    # the printed values of the leaves a row reaches add up to the model's score
    frame = credit[0].fillna(credit[0].median()).iloc[:200]
    X = frame.to_numpy(float)
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("Tree #")]
    blocks = [lines[a + 1:b] for a, b in zip(heads, [*heads[1:], len(lines)])]
    total = np.zeros(len(X))
    for t, block in zip(model.trees_, blocks):
        parsed = _parse_binary(block)
        for i, row in enumerate(X):
            node = parsed
            while "text" not in node:
                node = node["left"] if row[_names(model).index(node["name"])] <= node["thr"] else node["right"]
            total[i] += _leaf_numbers(node["text"])["value"]
    np.testing.assert_allclose(total, model.decision_function(frame), atol=len(model.trees_) * 1e-10 + 1e-9)


# ------------------------------------------------------------------------------------- CAL5 text
def _parse_multiway(lines):
    """CAL5 text back into nested dicts: {name, bounds: [(lo, hi)], children} or {text}."""
    pos = [0]
    interval = re.compile(r"(\S+) in \(" + NUM + ", " + NUM + r"[\])]:(.*)")

    def rec(depth):
        kids, name = [], None
        while pos[0] < len(lines):
            line = lines[pos[0]]
            ind = "|   " * depth
            if not line.startswith(ind) or line[len(ind):].startswith("|"):
                break
            m = interval.fullmatch(line[len(ind):])
            assert m is not None, line
            assert name in (None, m.group(1)), "one attribute per multiway node"
            name = m.group(1)
            pos[0] += 1
            rest = m.group(4).strip()
            child = {"text": rest} if rest else rec(depth + 1)
            kids.append(((float(m.group(2)), float(m.group(3))), child))
        return {"name": name, "bounds": [b for b, _ in kids], "children": [c for _, c in kids]}

    tree = rec(0)
    assert pos[0] == len(lines)
    return tree


@pytest.mark.parametrize("decimals", [3, 8])
def test_cal5_text_is_its_binary_chain(models, decimals):
    """The multiway text, parsed, is the binary chain: each printed bound is a chain threshold of
    that attribute, and a row inside a leaf's printed intervals reaches a chain leaf with the
    printed class, examples and p^c."""
    model = models["cal5"]
    t = model.tree_
    names, classes = _names(model), [str(c) for c in model.classes_]
    tol = 0.5 * 10.0 ** -decimals + 1e-12
    parsed = _parse_multiway(model.export_text(decimals=decimals).splitlines())
    chain_thr = {(names[t.feature[k]], t.threshold[k]) for k in np.flatnonzero(~t.is_leaf)}
    printed, n_leaves = set(), [0]

    def nearest(name, b):
        thr = min((thr for nm, thr in chain_thr if nm == name), key=lambda thr: abs(thr - b))
        assert abs(thr - b) <= tol, f"bound {b} of {name} is no threshold of the chain"
        return thr

    def rec(node, bounds):
        if "text" in node:
            n_leaves[0] += 1
            x = _probe(bounds, model.n_features_in_, names)
            k = apply_tree_arrays(t, x)[0]
            m = re.match(r"class (\S+)\s+\[(.*); n=(\d+), p\^c=\((.*)\)\]", node["text"])
            assert m is not None, node["text"]
            assert m.group(1) == classes[t.label[k]] and int(m.group(3)) == t.n_node_samples[k]
            pc = [float(v.split(": ")[1]) for v in m.group(4).split(", ")]
            np.testing.assert_allclose(pc, t.proba[k], atol=tol)
            return
        for (lo, hi), child in zip(node["bounds"], node["children"]):
            # the chain's exact thresholds, so probes sit inside the fitted intervals
            ex = [nearest(node["name"], b) if np.isfinite(b) else b for b in (lo, hi)]
            printed.update((node["name"], b) for b in ex if np.isfinite(b))
            old = bounds.get(node["name"], (-np.inf, np.inf))
            rec(child, {**bounds, node["name"]: (max(old[0], ex[0]), min(old[1], ex[1]))})

    rec(parsed, {})
    assert printed == chain_thr, "every chain threshold is printed as an interval bound"
    assert n_leaves[0] == t.n_leaves
    assert str(model).endswith(model.export_text())


# ------------------------------------------------------------------------------------- plots
def _boxes(ax):
    """{node id: (text, (x, y))} of the boxes drawn, and the (parent, child) edges drawn."""
    boxes = {}
    for txt in ax.texts:
        gid = txt.get_gid() or ""
        if gid.startswith("node "):
            boxes[int(gid.split()[1])] = (txt.get_text(), txt.get_position())
    edges = [tuple(int(v) for v in line.get_gid().split()[1:]) for line in ax.lines
             if (line.get_gid() or "").startswith("edge ")]
    return boxes, edges


def _check_binary_plot(model, t, ax, names, decimals, max_depth=None):
    tol = 0.5 * 10.0 ** -decimals + 1e-12
    boxes, _ = _boxes(ax)
    depth = t.node_depth
    drawn = set(np.flatnonzero(depth <= (np.inf if max_depth is None else max_depth)))
    assert set(boxes) == drawn
    for k, (text, (x, y)) in boxes.items():
        if t.children_left[k] == -1:
            _check_leaf(model, t, k, text.replace("\n", ", "), decimals)
            continue
        first = text.splitlines()[0]
        m = re.fullmatch(r"(\S+) <= " + NUM, first)
        assert m is not None, first
        assert m.group(1) == names[t.feature[k]]
        assert float(m.group(2)) == pytest.approx(t.threshold[k], abs=tol)
        assert ("NaN left" in text) == bool(t.missing_left[k])
        if depth[k] == max_depth:
            assert text.endswith("(...)")
            continue
        (lx, ly), (rx, ry) = boxes[t.children_left[k]][1], boxes[t.children_right[k]][1]
        assert ly < y and ry < y and lx < x < rx, "children below their parent, left child on the left"


@pytest.mark.parametrize("name", ["csdt", "figs", "figu"])
def test_plot_boxes_are_the_tree_arrays(models, name):
    model = models[name]
    names = [f"f_{n}" for n in _names(model)]
    out = model.plot(feature_names=names, decimals=4, fontsize=6)
    axes = [out] if name == "csdt" else list(out)
    assert len(axes) == len(_trees(model))
    for k, (t, ax) in enumerate(zip(_trees(model), axes)):
        _check_binary_plot(model, t, ax, names, 4)
        if name != "csdt":
            assert ax.get_title() == f"tree {k}"
    # max_depth cuts the drawing
    ax = model.plot(max_depth=1, tree_index=0) if name != "csdt" else model.plot(max_depth=1)
    _check_binary_plot(model, _trees(model)[0], ax, _names(model), 3, max_depth=1)


def test_figs_plot_one_tree_and_given_axes(models):
    model = models["figs"]
    n = len(model.trees_)
    assert n >= 2
    ax = model.plot(tree_index=n - 1)
    assert ax.get_title() == f"tree {n - 1}"
    _check_binary_plot(model, model.trees_[n - 1], ax, _names(model), 3)
    fig, given = plt.subplots(1, n)
    out = model.plot(ax=given)
    assert all(a is b for a, b in zip(out, given))
    # red leaves add to the score, blue ones take away, deeper colours for larger amounts
    values, colors = [], []
    for t, ax in zip(model.trees_, out):
        fig.canvas.draw()  # the boxes' patches exist once drawn
        boxes = {int(txt.get_gid().split()[1]): txt for txt in ax.texts}
        for k in np.flatnonzero(t.is_leaf):
            values.append(t.value[k])
            colors.append(boxes[k].get_bbox_patch().get_facecolor()[:3])
    values, colors = np.array(values), np.array(colors)
    assert (values > 0).any() and (values < 0).any()
    strength = 1.0 - colors.min(axis=1)
    for side in (values > 0, values <= 0):
        order = np.argsort(np.abs(values[side]))
        assert np.all(np.diff(strength[side][order]) >= -1.5 / 255)
    assert strength.max() > 0.3
    shown = strength > 2 / 255
    np.testing.assert_array_equal((colors[:, 0] > colors[:, 2])[shown], (values > 0)[shown])
    with pytest.raises(ValueError, match="ax must hold one Axes per tree"):
        model.plot(ax=given[:1])
    for bad in (n, -n - 1, 1.5, True):
        with pytest.raises(ValueError, match="tree_index"):
            model.plot(tree_index=bad)


def test_cal5_plot_is_its_multiway_view(models):
    model = models["cal5"]
    t = model.tree_
    names, classes = _names(model), [str(c) for c in model.classes_]
    ax = model.plot(decimals=5)
    boxes, edges = _boxes(ax)
    view = multiway_view(t)
    assert set(boxes) == {nd["node"] for nd in view}
    chain_thr = {(names[t.feature[k]], round(float(t.threshold[k]), 5)) for k in np.flatnonzero(~t.is_leaf)}
    drawn_thr = set()
    interval = re.compile(r"(\S+) in \(" + NUM + ", " + NUM + r"[\])]")
    for k, (text, (x, y)) in boxes.items():
        lines = text.splitlines()
        if k != 0:  # every box but the root's starts with its interval
            m = interval.fullmatch(lines.pop(0))
            assert m is not None, text
        kids = [b for a, b in edges if a == k]
        if not kids:
            assert t.children_left[k] == -1, "a leaf box is a chain leaf"
            assert lines[0] == f"class {classes[t.label[k]]}"
            assert f"n={int(t.n_node_samples[k])}" in lines
            continue
        assert lines[0] == names[t.feature[k]]
        m = re.search(r"I\^c=" + NUM, text)
        assert float(m.group(1)) == pytest.approx(t.info[k], abs=1e-5)
        lows = []
        for child in kids:
            assert boxes[child][1][1] < y, "children below their parent"
            m = interval.match(boxes[child][0])
            assert m.group(1) == lines[0], "a child's interval is on its parent's attribute"
            lo, hi = float(m.group(2)), float(m.group(3))
            drawn_thr |= {(lines[0], b) for b in (lo, hi) if np.isfinite(b)}
            lows.append((lo, boxes[child][1][0]))
        assert [x for _, x in sorted(lows)] == sorted(x for _, x in lows), "intervals left to right"
    assert drawn_thr == chain_thr, "every chain threshold is drawn as an interval bound"


# ---------------------------------------------------------------------------------- validation
@pytest.mark.parametrize("name", ["csdt", "figs", "figu", "cal5"])
def test_bad_arguments_name_themselves(models, name):
    model = models[name]
    for bad in (-1, 18, 2.5, True, "3"):
        with pytest.raises(ValueError, match="decimals"):
            model.export_text(decimals=bad)
        with pytest.raises(ValueError, match="decimals"):
            model.plot(decimals=bad)
    short = _names(model)[:-1]
    with pytest.raises(ValueError, match="feature_names has"):
        model.export_text(feature_names=short)
    with pytest.raises(ValueError, match="feature_names has"):
        model.plot(feature_names=short)
    with pytest.raises(TypeError, match="feature_names"):
        model.export_text(feature_names="amount")
    with pytest.raises(ValueError, match="max_depth"):
        model.plot(max_depth=-1)
    with pytest.raises(ValueError, match="fontsize"):
        model.plot(fontsize=0)
    renamed = [n.upper() + "_X" for n in _names(model)]
    text = model.export_text(feature_names=renamed)
    used = {_names(model)[f] for t in _trees(model) for f in t.feature[~t.is_leaf]}
    assert all(f"{n.upper()}_X " in text for n in used)
    unfitted = type(model)()
    with pytest.raises(NotFittedError):
        unfitted.export_text()
    with pytest.raises(NotFittedError):
        unfitted.plot()


def test_missing_matplotlib_names_the_extra():
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['matplotlib.pyplot'] = None\n"
        "import numpy as np\n"
        "from csdt import CostSensitiveDecisionTreeClassifier, FIGSClassifier, CAL5OCClassifier\n"
        "X = np.arange(40.0).reshape(20, 2); y = (X[:, 0] > 19).astype(int)\n"
        "for m in (CostSensitiveDecisionTreeClassifier(max_depth=2), FIGSClassifier(max_rules=2),\n"
        "          CAL5OCClassifier()):\n"
        "    m.fit(X, y); assert m.export_text()\n"
        "    try:\n"
        "        m.plot()\n"
        "    except ImportError as e:\n"
        "        assert \"csboost-plugins[plot]\" in str(e), e\n"
        "    else:\n"
        "        raise SystemExit('no ImportError')\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr

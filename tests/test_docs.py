"""The documentation: every public name is in the API reference, every ``>>>`` example of the
user guide runs and prints what the page says, and (after a build) a browser renders it."""

import doctest
import importlib
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))

from api_pages import MODULES, build_pages, public_names  # noqa: E402

GUIDE = sorted((DOCS / "user_guide").glob("*.rst"))


def test_every_public_name_is_in_the_api_reference():
    pages = build_pages()
    text = "\n".join(pages.values())
    for modnames in MODULES.values():
        for modname in modnames:
            try:
                module = importlib.import_module(modname)
            except ImportError:
                pytest.fail(f"{modname} is listed in docs/api_pages.py but does not import")
            assert modname in pages, modname
            for name, _ in public_names(module):
                assert f"   {name}\n" in pages[modname] + "\n" or f"``{modname}.{name}``" in pages[modname] \
                    or f".. autodata:: {name}" in pages[modname], f"{modname}.{name} missing from the API pages"
    # and every public module of both packages has a page
    for pkg in ("csboost_plugins", "csdt"):
        mod = importlib.import_module(pkg)
        subs = [n for n in mod.__all__ if type(getattr(mod, n)).__name__ == "module"]
        for s in subs:
            assert f"{pkg}.{s}" in pages, f"{pkg}.{s} has no API page"
    assert "csboost_plugins.savings_score" not in text.replace("``csboost_plugins.savings_score``", "")


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.name)
def test_user_guide_examples_run_and_print_what_the_page_says(page):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failures, tried = doctest.testfile(str(page), module_relative=False, verbose=False,
                                           optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0, f"{failures} of {tried} examples in {page.name} failed (run python -m doctest -v {page})"


BUILT = DOCS / "_build" / "html"


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _dump_dom(page):
    out = subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.mark.docs_build
def test_browser_renders_the_built_site():
    if not (BUILT / "index.html").exists():
        pytest.skip("docs not built: run `python -m sphinx -W -b html docs docs/_build/html` first (.ci/run does)")
    if _browser() is None:
        pytest.skip("no Chromium: apt-get install chromium (.ci/run installs it)")
    index = _dump_dom(BUILT / "index.html")
    assert "<title>" in index and "csboost-plugins" in index and "User guide" in index
    page = BUILT / "api" / "generated" / "csboost_plugins.metrics.savings_score.html"
    dom = _dump_dom(page)
    assert "savings_score" in dom and "y_true" in dom and "cost_matrix" in dom  # the rendered signature

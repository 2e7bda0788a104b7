"""Sphinx configuration: user guide, API reference generated from ``__all__``, executed gallery.

Build (warnings are errors): ``python -m sphinx -W -b html docs docs/_build/html``.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))
os.environ.setdefault("MPLBACKEND", "Agg")

import csboost_plugins  # noqa: E402
from api_pages import write_api_pages  # noqa: E402

project = "csboost-plugins"
author = "csboost-plugins developers"
copyright = "2026, csboost-plugins developers"
release = version = csboost_plugins.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "generated_api/*.inc", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json", "auto_examples/*.md5"]
templates_path = ["_templates"]

# API reference: one page per public module, written from each module's __all__ at build time
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# the gallery executes every example in examples/ and embeds its figures and output
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # execute all of them, not only plot_*.py
    "ignore_pattern": r"(^|/)_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "image_scrapers": ("matplotlib",),
    "min_reported_time": 1,
}

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# RESULTS.md links to results/*.md files that are not pages of the site; not a docs error
suppress_warnings = ["myst.header", "myst.xref_missing", "config.cache"]

html_theme = "pydata_sphinx_theme"
html_title = "csboost-plugins"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "icon_links": [],
}
html_static_path = []

# third-party deprecation chatter while importing examples must not fail -W
warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=FutureWarning)

# written now, before autosummary's own builder-inited handler reads the pages
write_api_pages(DOCS / "api")

"""The AOT build imports every kernel module in an isolated build environment that has numba
and numpy but no scikit-learn, scipy, pandas, xgboost or lightgbm (pyproject's build-system
requires): the kernel modules and their packages must import with numba and numpy alone, or
`pip install` silently drops the compiled extension."""

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CODE = textwrap.dedent("""
    import importlib, sys
    for m in ("sklearn", "pandas", "scipy", "xgboost", "lightgbm", "matplotlib", "dask"):
        sys.modules[m] = None  # absent from the build environment
    sys.path.insert(0, sys.argv[1])
    spec = {}
    exec(open(sys.argv[1] + "/setup.py").read().split("class BuildAOTKernels")[0].split("from setuptools")[0]
         + "\\n", spec)
    for ext, mod in {"csdt._kernels_aot": "csdt._aot", "csboost_plugins.rules._kernels_aot":
                     "csboost_plugins.rules._aot", "csboost_plugins.boosting._aec_kernels_aot": "csboost_plugins.boosting._aec_kernels",
                     "csboost_plugins._capacity_kernels_aot": "csboost_plugins._capacity_kernels"}.items():
        k = importlib.import_module(mod).KERNELS
        k.source_hash()
        for name, (m, func, _, _) in k.signatures.items():
            getattr(importlib.import_module(k.package + "." + m), func)
    print("ok")
""")


def test_kernel_modules_import_without_the_runtime_dependencies():
    out = subprocess.run([sys.executable, "-c", CODE, str(REPO)], capture_output=True, text=True, timeout=300,
                         cwd=REPO)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


def test_setup_builds_every_kernel_set_listed_here():
    setup = (REPO / "setup.py").read_text()
    for ext in ("csdt._kernels_aot", "csboost_plugins.rules._kernels_aot", "csboost_plugins.boosting._aec_kernels_aot",
                "csboost_plugins._capacity_kernels_aot"):
        assert f'"{ext}"' in setup

"""Package layout rules from the developers' guide."""

import subprocess
import sys


def test_csboost_plugins_never_imports_csdt():
    code = (
        "import importlib, pkgutil, sys, csboost_plugins\n"
        "for m in pkgutil.walk_packages(csboost_plugins.__path__, 'csboost_plugins.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(k for k in sys.modules if k == 'csdt' or k.startswith('csdt.'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_csdt_public_names_resolve():
    import csdt

    missing = []
    for name in csdt.__all__:
        try:
            getattr(csdt, name)
        except (ImportError, AttributeError) as exc:  # noqa: PERF203
            missing.append(f"{name}: {exc}")
    assert not missing, missing

"""Build hook: compile the numba kernels ahead of time (see csboost_plugins/_aot.py).

Everything else about the distribution is in pyproject.toml. The extension is
optional: if numba.pycc or a C compiler is missing (or CSDT_NO_AOT=1), the build says so and
the package falls back to numba's JIT kernels (same results, 4-10 s of compile on first use).
"""

import importlib
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
# extension -> module holding its KernelSet as KERNELS (see csboost_plugins/_aot.py)
EXTENSIONS = {"csdt._kernels_aot": "csdt._aot", "csboost_plugins.rules._kernels_aot": "csboost_plugins.rules._aot",
              "csboost_plugins.boosting._aec_kernels_aot": "csboost_plugins.boosting._aec_kernels",
              "csboost_plugins._capacity_kernels_aot": "csboost_plugins._capacity_kernels"}


class BuildAOTKernels(build_ext):
    """Compiles the AOT extensions with numba.pycc; drops one (JIT fallback) that cannot be built."""

    def run(self):
        aot = [e for e in self.extensions if e.name in EXTENSIONS]
        if aot:
            # into build_lib, where setuptools' run() builds (it copies to the source tree for
            # editable installs); on failure an extension is dropped: its package runs on the JIT
            inplace, self.inplace = self.inplace, 0
            sys.path.insert(0, HERE)
            try:
                from csboost_plugins._aot_build import private_numba_cache

                with private_numba_cache():  # one cache dir for both: numba reads it once
                    for ext in aot:
                        if not self._build_aot(ext.name):
                            self.extensions.remove(ext)
            finally:
                self.inplace = inplace
                sys.path.remove(HERE)
        super().run()

    def build_extension(self, ext):
        if ext.name not in EXTENSIONS:  # the AOT ones are built in run()
            super().build_extension(ext)

    def _build_aot(self, name):
        if os.environ.get("CSDT_NO_AOT") == "1":
            print(f"CSDT_NO_AOT=1: {name} not built; numba JIT-compiles its kernels on first use", file=sys.stderr)
            return False
        path = self.get_ext_fullpath(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            from csboost_plugins._aot_build import build

            build(importlib.import_module(EXTENSIONS[name]).KERNELS, os.path.dirname(path), os.path.basename(path))
            return True
        except Exception as exc:  # optional: the JIT kernels remain
            print(f"WARNING: {name} not built ({type(exc).__name__}: {exc}); its kernels will be "
                  "JIT-compiled on first use", file=sys.stderr)
            return False


# plain C, optional: without it an object column of text is read by pandas' hash table (same codes, slower)
TEXT_CODES = Extension("csboost_plugins.rules._text_codes", sources=["csboost_plugins/rules/_text_codes.c"],
                       optional=True)

setup(ext_modules=[Extension(name, sources=[]) for name in EXTENSIONS] + [TEXT_CODES],
      cmdclass={"build_ext": BuildAOTKernels})

"""Build hook: compile the CSDT tree kernels ahead of time (see csdt/_aot.py).

Everything else about the distribution is in pyproject.toml. The extension is
optional: if numba.pycc or a C compiler is missing (or CSDT_NO_AOT=1), the build says so and
the package falls back to numba's JIT kernels (same results, 4-10 s of compile on first use).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
EXTENSION = "csdt._kernels_aot"


class BuildAOTKernels(build_ext):
    """Compiles csdt._kernels_aot with numba.pycc; drops it (JIT fallback) if that cannot be done."""

    def run(self):
        ext = next((e for e in self.extensions if e.name == EXTENSION), None)
        if ext is not None:
            # into build_lib, where setuptools' run() builds (it copies to the source tree for
            # editable installs); on failure the extension is dropped: the package runs on the JIT
            inplace, self.inplace = self.inplace, 0
            try:
                if not self._build_aot():
                    self.extensions.remove(ext)
            finally:
                self.inplace = inplace
        super().run()

    def build_extension(self, ext):
        if ext.name != EXTENSION:  # the AOT one is built in run()
            super().build_extension(ext)

    def _build_aot(self):
        if os.environ.get("CSDT_NO_AOT") == "1":
            print("CSDT_NO_AOT=1: csdt ahead-of-time kernels not built; numba JIT-compiles them on first use",
                  file=sys.stderr)
            return False
        path = self.get_ext_fullpath(EXTENSION)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        sys.path.insert(0, HERE)
        try:
            from csdt._aot_spec import build

            build(os.path.dirname(path), os.path.basename(path))
            return True
        except Exception as exc:  # optional: the JIT kernels remain
            print(f"WARNING: csdt ahead-of-time kernels not built ({type(exc).__name__}: {exc}); "
                  "csdt will JIT-compile its kernels on first use", file=sys.stderr)
            return False
        finally:
            sys.path.remove(HERE)


setup(ext_modules=[Extension(EXTENSION, sources=[])],
      cmdclass={"build_ext": BuildAOTKernels})

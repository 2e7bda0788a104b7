"""Build hook: compile the CSDT tree kernels ahead of time (see csdt/_aot.py).

Everything else about the distribution is in pyproject.toml. The extension is
optional: if numba.pycc or a C compiler is missing, the build says so and the package
falls back to numba's JIT kernels (same results, about 4 s of compile on first use).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildAOTKernels(build_ext):
    def build_extension(self, ext):
        if ext.name != "csdt._kernels_aot":
            return super().build_extension(ext)
        path = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        sys.path.insert(0, HERE)
        try:
            from csdt._aot_spec import build

            build(os.path.dirname(path), os.path.basename(path))
        except Exception as exc:  # optional: the JIT kernels remain
            print(f"WARNING: csdt ahead-of-time kernels not built ({type(exc).__name__}: {exc}); "
                  "csdt will JIT-compile its tree kernels on first use", file=sys.stderr)
        finally:
            sys.path.remove(HERE)


setup(ext_modules=[Extension("csdt._kernels_aot", sources=[])],
      cmdclass={"build_ext": BuildAOTKernels})

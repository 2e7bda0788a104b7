"""Build-time half of :mod:`csdt._aot`: compile the tree kernels with ``numba.pycc``.

Called by ``setup.py`` (``build_ext``) and by ``python -m csdt._aot_spec [DIR]`` (a
rebuild after editing a kernel in a checkout). Every entry of
:data:`csdt._aot.SIGNATURES` is exported from the same Python function the JIT
compiles; the kernels it calls are compiled into the extension. The generic CPU
target keeps the extension valid on any x86-64 machine the build is copied to.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
import warnings

from . import _aot

EXTENSION = "csdt._kernels_aot"


def _numba_type(spec):
    from numba import types

    scalars = {"i8": types.int64, "f8": types.float64, "b1": types.boolean, "none": types.none}
    if isinstance(spec, str):
        return scalars[spec]
    if spec[0] in ("A", "R"):
        dtype = types.boolean if spec[1] == "bool" else getattr(types, spec[1])
        return types.Array(dtype, spec[2], "C", readonly=spec[0] == "R")
    return types.Tuple(tuple(_numba_type(s) for s in spec[1:]))


@contextlib.contextmanager
def _nogil_wrappers():
    """Make pycc emit wrappers that release the GIL around the kernel call.

    pycc compiles its exports with a fresh ``numba.pycc.compiler.Flags()``; numba's own
    wrapper code releases the GIL when ``flags.release_gil`` is set (what
    ``@njit(nogil=True)`` sets), so a ``Flags`` subclass with it on gives the extension
    the JIT kernels' ``nogil``: threads (ensembles, threaded binning) run in parallel.
    Yields whether the patch applied (else the wrappers hold the GIL and
    :func:`csdt._aot.use_aot` keeps the AOT code to the main thread).
    """
    try:
        import numba.pycc.compiler as pycc_compiler

        base = pycc_compiler.Flags
    except (ImportError, AttributeError):
        base = None
    if base is None or "release_gil" not in dir(base()):
        yield False
        return

    class NoGilFlags(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = NoGilFlags
    try:
        yield True
    finally:
        pycc_compiler.Flags = base


def make_cc(output_dir, output_file=None, nogil=False):
    """A configured ``numba.pycc.CC`` exporting every kernel of ``_aot.SIGNATURES``."""
    with warnings.catch_warnings():  # pycc is "pending deprecation" since numba 0.57
        warnings.simplefilter("ignore")
        from numba.pycc import CC
    cc = CC(EXTENSION.rsplit(".", 1)[1])
    cc.output_dir = output_dir
    if output_file:
        cc.output_file = output_file
    cc.verbose = False
    for name, (mod, func, ret, args) in _aot.SIGNATURES.items():
        py_func = getattr(importlib.import_module(f"csdt.{mod}"), func).py_func
        sig = _numba_type(ret)(*(_numba_type(a) for a in args))
        cc.export(name, sig)(py_func)
    key = _aot.source_hash()

    def source_hash():
        return key

    cc.export("source_hash", "i8()")(source_hash)

    def releases_gil():
        return nogil

    cc.export("releases_gil", "b1()")(releases_gil)
    return cc


def build(output_dir, output_file=None):
    """Compile the extension into ``output_dir``; returns its path.

    The JIT cache of the kernels compiled along the way goes to a temporary directory,
    not into the source tree.
    """
    old = os.environ.get("NUMBA_CACHE_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NUMBA_CACHE_DIR"] = tmp
        try:
            with _nogil_wrappers() as nogil:
                cc = make_cc(output_dir, output_file, nogil)
                cc.compile()
        finally:
            if old is None:
                os.environ.pop("NUMBA_CACHE_DIR", None)
            else:
                os.environ["NUMBA_CACHE_DIR"] = old
    return os.path.join(cc.output_dir, cc.output_file)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    print(build(sys.argv[1] if len(sys.argv) > 1 else here))

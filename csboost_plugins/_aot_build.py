"""Build-time half of :mod:`csboost_plugins._aot`: compile kernel sets with ``numba.pycc``.

Called by ``setup.py`` (``build_ext``; after editing a kernel in a checkout, rebuild in
place with ``pip install -e .`` or ``python setup.py build_ext --inplace``). Every signature of a
:class:`~csboost_plugins._aot.KernelSet` is exported from the same Python function the
JIT compiles; the kernels it calls are compiled into the extension. The generic x86-64
CPU target keeps the extension valid on any machine the build is copied to (pycc's
``"host"`` target produced illegal instructions here).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import tempfile
import warnings

def numba_type(spec):
    """The numba type of a spec of the ``_aot`` type grammar."""
    from numba import types

    scalars = {"i8": types.int64, "f8": types.float64, "b1": types.boolean, "none": types.none}
    if isinstance(spec, str):
        return scalars[spec]
    if spec[0] in ("A", "R", "RF"):
        dtype = types.boolean if spec[1] == "bool" else getattr(types, spec[1])
        return types.Array(dtype, spec[2], "F" if spec[0] == "RF" else "C", readonly=spec[0] != "A")
    return types.Tuple(tuple(numba_type(s) for s in spec[1:]))


@contextlib.contextmanager
def nogil_wrappers():
    """Make pycc emit wrappers that release the GIL around the kernel call.

    pycc compiles its exports with a fresh ``numba.pycc.compiler.Flags()``; numba's own
    wrapper code releases the GIL when ``flags.release_gil`` is set (what
    ``@njit(nogil=True)`` sets), so a ``Flags`` subclass with it on gives the extension
    the JIT kernels' ``nogil``: threads (ensembles, threaded binning, rule evaluation)
    run in parallel. Yields whether the patch applied (else the wrappers hold the GIL and
    ``KernelSet.use_aot`` keeps the AOT code to the main thread).
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


@contextlib.contextmanager
def private_numba_cache():
    """Send the JIT cache of kernels compiled during a build to a temporary directory, not
    into the source tree (numba reads ``NUMBA_CACHE_DIR`` at import: enter this first)."""
    old = os.environ.get("NUMBA_CACHE_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NUMBA_CACHE_DIR"] = tmp
        try:
            yield
        finally:
            if old is None:
                os.environ.pop("NUMBA_CACHE_DIR", None)
            else:
                os.environ["NUMBA_CACHE_DIR"] = old


def make_cc(kernels, output_dir, output_file=None, nogil=False):
    """A configured ``numba.pycc.CC`` exporting every signature of ``kernels``."""
    with warnings.catch_warnings():  # pycc is "pending deprecation" since numba 0.57
        warnings.simplefilter("ignore")
        from numba.pycc import CC
    cc = CC(kernels.extension.rsplit(".", 1)[1])
    cc.output_dir = output_dir
    if output_file:
        cc.output_file = output_file
    cc.verbose = False
    cc.target_cpu = getattr(kernels, "target_cpu", "")  # "": pycc's generic x86-64
    for name, (mod, func, ret, args) in kernels.signatures.items():
        py_func = getattr(importlib.import_module(f"{kernels.package}.{mod}"), func).py_func
        sig = numba_type(ret)(*(numba_type(a) for a in args))
        cc.export(name, sig)(py_func)
    key = kernels.source_hash()

    def source_hash():
        return key

    cc.export("source_hash", "i8()")(source_hash)

    def releases_gil():
        return nogil

    cc.export("releases_gil", "b1()")(releases_gil)
    return cc


def build(kernels, output_dir, output_file=None):
    """Compile the :class:`~csboost_plugins._aot.KernelSet` ``kernels`` into ``output_dir``;
    returns the extension's path. Enter :func:`private_numba_cache` first."""
    with nogil_wrappers() as nogil:
        cc = make_cc(kernels, output_dir, output_file, nogil)
        cc.compile()
    return os.path.join(cc.output_dir, cc.output_file)

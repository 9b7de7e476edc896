"""Shared fixtures: one clgather Context for the whole session (the default
context, so programs are built once), a pyopencl queue of the caller's own
on its device, and byte-for-byte comparison against numpy.

No OpenCL device is a failure, not a skip: the session fixture raises
RuntimeError and every test errors."""

import os

import numpy as np
import pytest

import clgather

# The python_venv test (run_venv.cmake) runs the suite on a pip-installed
# copy: it must be that copy, not a source tree on the path.
_EXPECT = os.environ.get("CLGATHER_EXPECT_PACKAGE")
if _EXPECT:
    _pkg = os.path.realpath(os.path.dirname(clgather.__file__))
    assert _pkg.startswith(os.path.realpath(_EXPECT) + os.sep), (
        "clgather imported from %s, not from %s" % (_pkg, _EXPECT))

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
          np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]
DTYPE_IDS = [np.dtype(d).name for d in DTYPES]


@pytest.fixture(scope="session", autouse=True)
def ctx():
    c = clgather.Context()  # RuntimeError when there is no OpenCL device
    clgather.set_default_context(c)
    yield c
    clgather.set_default_context(None)


@pytest.fixture(scope="session")
def cl_queue(ctx):
    """A command queue of the caller's own (not the library's) on the
    session context's cl_context and device."""
    import pyopencl as cl  # a dependency of the suite: missing is a failure
    return cl.CommandQueue(ctx.pyopencl_context(), ctx.pyopencl_device())


def sample(shape, dtype, seed=0):
    """Values of every dtype with distinct bytes (no NaN)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    elif dt.kind == "f":
        v = (rng.standard_normal(n) * 100).astype(dt)
    else:
        v = (rng.standard_normal(n) * 100
             + 1j * rng.standard_normal(n) * 100).astype(dt)
    return v.reshape(shape)


def same(got, want):
    """got equals want byte for byte, with numpy's type, dtype and shape."""
    assert type(got) is type(want), (type(got), type(want))
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.tobytes() == want.tobytes(), (got, want)

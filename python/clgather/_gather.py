"""The gathers: take (ONNX Gather), take_along_axis (GatherElements),
gather_nd (GatherND)."""

import ctypes

import numpy as np

from . import _context, _lib
from ._call import Call, choose, normalize_axis, operand, output_shape
from ._docs import ERRORS_COMMON, KEYWORDS, OPERANDS


_Shape = ctypes.c_int64 * _lib.CLG_MAX_RANK


def _host_tensor(arr, code):
    """A clg_tensor over a C-contiguous, aligned, native numpy array."""
    return _lib.Tensor(code, arr.ndim, _Shape(*arr.shape), _lib.STORAGE_HOST,
                       arr.ctypes.data, None, 0)


def _fast_operands(a, indices):
    """The clg_dtype of `a` where both are numpy arrays the library reads
    in place (C-contiguous, aligned, native byte order, dtypes it takes,
    `a` of rank >= 1), else None (the general path)."""
    if type(a) is not np.ndarray or type(indices) is not np.ndarray:
        return None
    code = _lib.DTYPES.get(a.dtype)
    ifl, afl = indices.flags, a.flags
    if (code is None or indices.dtype not in _lib.INDEX_DTYPES
            or not (afl.c_contiguous and afl.aligned)
            or not (ifl.c_contiguous and ifl.aligned)
            or not a.dtype.isnative or not indices.dtype.isnative
            or a.ndim == 0):
        return None
    return code


def _run_fast(op, axis, mode, a, code, indices, shape):
    """clg_run of `op` on the default context into a new array of `shape`
    (the operator's output shape, worked out by the caller for operands it
    knows valid; the library checks everything again)."""
    if len(shape) > _lib.CLG_MAX_RANK or indices.ndim > _lib.CLG_MAX_RANK:
        return None
    result = np.empty(shape, a.dtype)
    params = _lib.Params(op, axis, 0, mode)
    t_d = _host_tensor(a, code)
    t_x = _host_tensor(indices, _lib.DTYPES[indices.dtype])
    t_o = _host_tensor(result, code)
    ctx = _context._default  # set once; read without the lock
    handle = ctx._handle if ctx is not None and ctx._handle else \
        _context.default_context().handle
    _lib.check(_lib.clg_run(handle, ctypes.byref(params), ctypes.byref(t_d),
                            ctypes.byref(t_x), ctypes.byref(t_o), None, 0,
                            None, None))
    return result


def _take_fast(a, indices, axis, mode):
    """take() of numpy arrays the library reads in place, with no out,
    batch_dims, context, queue, wait list or outcome: straight to clg_run
    on the default context, without the general path's operands and
    checks. None where that does not hold: the general path then runs (and
    raises what it raises)."""
    code = _fast_operands(a, indices)
    if code is None or mode not in _lib.MODES:
        return None
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    elif type(axis) is not int or not -a.ndim <= axis < a.ndim:
        return None
    elif axis < 0:
        axis += a.ndim
    shape = a.shape[:axis] + indices.shape + a.shape[axis + 1:]
    result = _run_fast(_lib.OP_GATHER, axis, _lib.MODES[mode], a, code,
                       indices, shape)
    if result is None:
        return None
    return result[()] if result.ndim == 0 else result


def _take_along_axis_fast(arr, indices, axis):
    """take_along_axis() as _take_fast(): indices of arr's rank and of its
    shape off `axis` (no broadcast), an int axis."""
    code = _fast_operands(arr, indices)
    if (code is None or type(axis) is not int
            or not -arr.ndim <= axis < arr.ndim or indices.ndim != arr.ndim):
        return None
    if axis < 0:
        axis += arr.ndim
    if any(n != m for d, (n, m) in enumerate(zip(arr.shape, indices.shape))
           if d != axis):
        return None
    return _run_fast(_lib.OP_GATHER_ELEMENTS, axis, 0, arr, code, indices,
                     indices.shape)


def _gather_nd_fast(data, indices):
    """gather_nd() with batch_dims 0 as _take_fast(): tuples of 1 to
    data.ndim components."""
    code = _fast_operands(data, indices)
    if code is None or indices.ndim == 0:
        return None
    m = indices.shape[-1]
    if not 1 <= m <= data.ndim:
        return None
    return _run_fast(_lib.OP_GATHER_ND, 0, 0, data, code, indices,
                     indices.shape[:-1] + data.shape[m:])


def take(a, indices, axis=None, mode="raise", out=None, batch_dims=0, *,
         context=None, queue=None, wait_for=None, outcome=None):
    if (out is None and batch_dims == 0 and context is None and queue is None
            and wait_for is None and outcome is None):
        result = _take_fast(a, indices, axis, mode)
        if result is not None:
            return result
    params = _lib.Params(_lib.OP_GATHER, 0,
                         _lib.int64(batch_dims, "batch_dims"),
                         choose(mode, _lib.MODES, "mode"))
    call = Call((a, indices), out, context, queue, wait_for)
    data = call.add(operand(a, "a"))
    idx = call.add(operand(indices, "indices", index=True))
    if axis is None:
        if params.batch_dims != 0:
            raise ValueError("clgather: batch_dims needs an axis "
                             "(axis=None flattens a)")
        data = data.reshape((int(np.prod(data.shape, dtype=np.int64)),))
        axis = 0
    params.axis = normalize_axis(axis, data.ndim)
    output = call.output(output_shape(params, data, idx), data.dtype)
    result = call.run(_lib.clg_run, params, [data, idx], output,
                      outcome=outcome)
    if out is None and isinstance(result, np.ndarray) and result.ndim == 0:
        return result[()]  # numpy's take returns a scalar here
    return result


take.__doc__ = """\
Take elements from an array along an axis: ``numpy.take``, run as ONNX
``Gather`` (opsets 1, 11, 13) on an OpenCL device.

Every index is checked before any kernel writes: an index outside
``[-s, s-1]`` (``s = a.shape[axis]``) in mode ``"raise"`` is an IndexError
naming its position, value and the valid range, and `out` is untouched.

Parameters
----------
a : array_like or pyopencl.array.Array, shape (Ni..., M, Nk...)
    The source array (ONNX: data).
indices : array_like or pyopencl.array.Array of int32 or int64, shape (Nj...)
    The indices of the values to take; a negative index counts from the
    back. Rank 0 gives numpy's shapes (the axis is dropped).
axis : int, optional
    The axis to take along, negative counting from the back. None (the
    default, as numpy) takes from the flattened `a`.
mode : {{'raise', 'wrap', 'clip'}}, optional
    What an index outside ``[-s, s-1]`` means: 'raise' an IndexError
    (numpy's default, ONNX's rule), 'wrap' Python's ``k mod s``, 'clip' the
    nearest of 0 and ``s-1`` (negative indices clip to 0, as numpy). In
    every mode an index into an axis of size 0 is an IndexError.
out : ndarray or pyopencl.array.Array, optional, shape (Ni..., Nj..., Nk...)
    Where to write the result; same dtype as `a`. Returned.
batch_dims : int, optional
    TensorFlow's ``tf.gather`` batch_dims (not in numpy or ONNX): the first
    `batch_dims` dimensions of `a` and `indices` must be equal and are
    looped over together; ``batch_dims <= axis``; negative counts from
    ``indices.ndim``. Needs an `axis`. Default 0.
{keywords}

Returns
-------
out : ndarray or pyopencl.array.Array, shape (Ni..., Nj..., Nk...)
    ``a.shape[:axis] + indices.shape[batch_dims:] + a.shape[axis+1:]``,
    dtype of `a`. As numpy, a result of rank 0 without `out` is a numpy
    scalar.

Raises
------
IndexError
    An index out of bounds (mode 'raise'), or any index into an axis of
    size 0; the message names the position in `indices`, the value, the
    axis and its valid range.
numpy.exceptions.AxisError
    `axis` outside ``[-a.ndim, a.ndim-1]``.
ValueError
    An unknown `mode`; `batch_dims` out of range or without `axis`; batch
    dimensions that differ; `out` of the wrong shape or read-only; a result
    rank above 16.
OverflowError
    `batch_dims` outside int64's range.
{errors}

Notes
-----
{operands}
""".format(keywords=KEYWORDS, errors=ERRORS_COMMON, operands=OPERANDS)


def _broadcast(op, shape):
    """op broadcast to `shape` as numpy would, by stride 0 (no copy)."""
    if op.shape == shape:
        return op
    return op.broadcast_to(shape)


def take_along_axis(arr, indices, axis, *, context=None, queue=None,
                    wait_for=None, outcome=None):
    if (context is None and queue is None and wait_for is None
            and outcome is None):
        result = _take_along_axis_fast(arr, indices, axis)
        if result is not None:
            return result
    call = Call((arr, indices), None, context, queue, wait_for)
    data = operand(arr, "arr")
    idx = operand(indices, "indices", index=True)
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single "
                             "dimension.")
        data = data.reshape((int(np.prod(data.shape, dtype=np.int64)),))
        axis = 0
    axis = normalize_axis(axis, data.ndim)
    if idx.ndim != data.ndim:
        raise ValueError("`indices` and `arr` must have the same number of "
                         "dimensions")
    off = [1 if d == axis else None for d in range(data.ndim)]
    try:
        common = np.broadcast_shapes(
            tuple(o or s for o, s in zip(off, data.shape)),
            tuple(o or s for o, s in zip(off, idx.shape)))
    except ValueError:
        raise ValueError(
            "clgather: take_along_axis: arr of shape %s and indices of shape "
            "%s do not broadcast off axis %d" % (data.shape, idx.shape, axis)
        ) from None

    def along(n):
        return common[:axis] + (n,) + common[axis + 1:]
    data = call.add(_broadcast(data, along(data.shape[axis])))
    idx = call.add(_broadcast(idx, along(idx.shape[axis])))
    params = _lib.Params(_lib.OP_GATHER_ELEMENTS, axis, 0, 0)
    output = call.output(output_shape(params, data, idx), data.dtype)
    return call.run(_lib.clg_run, params, [data, idx], output,
                    outcome=outcome)


take_along_axis.__doc__ = """\
Take values from the input array by matching 1-d index and data slices:
``numpy.take_along_axis``, run as ONNX ``GatherElements`` (opsets 11, 13)
on an OpenCL device.

``out[i..., j, k...] = arr[i..., indices[i..., j, k...], k...]`` along
`axis`. Every index is checked before any kernel writes; an index outside
``[-M, M-1]`` is an IndexError naming its position, value and range.

Parameters
----------
arr : array_like or pyopencl.array.Array, shape (Ni..., M, Nk...)
    The source array (ONNX: data).
indices : array_like or pyopencl.array.Array of int32 or int64, shape (Ni..., J, Nk...)
    Same rank as `arr`. Off `axis` its dimensions broadcast against
    `arr`'s, as numpy's (ONNX's rule, indices dimensions smaller than
    data's, is not numpy's: slice `arr` first for it). numpy and pyopencl
    operands alike are broadcast by stride 0: nothing is copied.
axis : int or None
    The axis, negative counting from the back; None takes along the
    flattened `arr` (then `indices` must be 1-d).
{keywords}

Returns
-------
out : ndarray or pyopencl.array.Array, shape (Ni..., J, Nk...)
    The broadcast shape, with `indices`' length along `axis`; dtype of
    `arr`.

Raises
------
IndexError
    An index out of ``[-M, M-1]`` (or into an axis of size 0), named with
    its position, value and valid range.
numpy.exceptions.AxisError
    `axis` outside ``[-arr.ndim, arr.ndim-1]``.
ValueError
    `indices` of another rank (or not 1-d with axis=None); shapes that do
    not broadcast; a rank above 16.
{errors}

Notes
-----
{operands}
""".format(keywords=KEYWORDS, errors=ERRORS_COMMON, operands=OPERANDS)


def gather_nd(data, indices, batch_dims=0, *, context=None, queue=None,
              wait_for=None, outcome=None):
    if (batch_dims == 0 and context is None and queue is None
            and wait_for is None and outcome is None):
        result = _gather_nd_fast(data, indices)
        if result is not None:
            return result
    call = Call((data, indices), None, context, queue, wait_for)
    d = call.add(operand(data, "data"))
    idx = call.add(operand(indices, "indices", index=True))
    params = _lib.Params(_lib.OP_GATHER_ND, 0,
                         _lib.int64(batch_dims, "batch_dims"), 0)
    output = call.output(output_shape(params, d, idx), d.dtype)
    return call.run(_lib.clg_run, params, [d, idx], output, outcome=outcome)


gather_nd.__doc__ = """\
Gather slices of `data` addressed by tuples of indices: ONNX ``GatherND``
(opsets 11, 12, 13, with batch_dims; TensorFlow's ``tf.gather_nd``) on an
OpenCL device. numpy has no such function: ``data[tuple(indices.T)]`` for
``batch_dims=0``.

With ``b = batch_dims``, ``m = indices.shape[-1]``: for every batch
position and every tuple ``t = indices[..., :]``,
``out[..] = data[batch..., t[0], ..., t[m-1], ...]``, a slice of shape
``data.shape[b+m:]``. Component j of each tuple is checked against
``[-d, d-1]``, ``d = data.shape[b+j]``, before any kernel writes.

Parameters
----------
data : array_like or pyopencl.array.Array, shape (B..., D..., S...)
    Rank r >= 1.
indices : array_like or pyopencl.array.Array of int32 or int64, shape (B..., N..., m)
    Rank q >= 1; ``1 <= m <= r - b``; the first b dimensions equal
    `data`'s.
batch_dims : int, optional
    ONNX's batch_dims, ``0 <= b <= min(r, q) - 1``. Default 0.
{keywords}

Returns
-------
out : ndarray or pyopencl.array.Array, shape (B..., N..., S...)
    ``indices.shape[:-1] + data.shape[b+m:]``, dtype of `data` (rank 0 is
    a 0-d array).

Raises
------
IndexError
    A tuple component out of bounds, named with its position, value, the
    data axis and its valid range.
ValueError
    `data` of rank 0, `indices` of rank 0, m out of ``[1, r-b]``,
    `batch_dims` out of range, batch dimensions that differ, a rank above
    16.
OverflowError
    `batch_dims` outside int64's range.
{errors}

Notes
-----
{operands}
""".format(keywords=KEYWORDS, errors=ERRORS_COMMON, operands=OPERANDS)

__all__ = ["take", "take_along_axis", "gather_nd"]

"""The scatters: scatter_elements (ONNX ScatterElements) and scatter_nd
(ONNX ScatterND), through clg_scatter."""


import numpy as np

from . import _lib
from ._call import Call, _dtype_name, choose, is_cl, operand
from ._docs import ERRORS_COMMON, KEYWORDS, OPERANDS


def _updates(updates, dtype):
    """updates as an Operand of data's dtype: host values are cast to it
    under numpy's 'same_kind' rule (a ufunc's rule for out=; numpy 1.24's
    ufunc.at itself casts unsafely, computing in the promoted type);
    pyopencl ones must match."""
    if is_cl(updates):
        return operand(updates, "updates")
    arr = np.asarray(updates)
    if arr.dtype != dtype:
        if not np.can_cast(arr.dtype, dtype, "same_kind"):
            raise TypeError("clgather: cannot cast updates from dtype %s to "
                            "%s according to the rule 'same_kind'"
                            % (_dtype_name(arr.dtype), _dtype_name(dtype)))
        arr = arr.astype(dtype)
    return operand(arr, "updates")


def _scatter(op, data, indices, updates, axis, reduction, duplicates, out,
             context, queue, wait_for, outcome):
    sp = _lib.ScatterParams(choose(reduction, _lib.REDUCTIONS, "reduction"),
                            choose(duplicates, _lib.DUPLICATES, "duplicates"))
    call = Call((data, indices, updates), out, context, queue, wait_for)
    d = call.add(operand(data, "data"))
    idx = call.add(operand(indices, "indices", index=True))
    upd = call.add(_updates(updates, d.dtype))
    params = _lib.Params(op, _lib.int64(axis, "axis"), 0, 0)
    output = call.output(d.shape, d.dtype, in_place_of=d)
    return call.run(_lib.clg_scatter, params, [d, idx, upd], output,
                    scatter=sp, outcome=outcome)


def scatter_elements(data, indices, updates, axis=0, reduction="none",
                     duplicates="error", out=None, *, context=None,
                     queue=None, wait_for=None, outcome=None):
    return _scatter(_lib.OP_SCATTER_ELEMENTS, data, indices, updates, axis,
                    reduction, duplicates, out, context, queue, wait_for,
                    outcome)


def scatter_nd(data, indices, updates, reduction="none", duplicates="error",
               out=None, *, context=None, queue=None, wait_for=None,
               outcome=None):
    return _scatter(_lib.OP_SCATTER_ND, data, indices, updates, 0,
                    reduction, duplicates, out, context, queue, wait_for,
                    outcome)


_COMMON = """\
reduction : {'none', 'add', 'mul', 'min', 'max'}, optional
    ONNX's reduction: how an update combines with the element it lands on.
    Updates apply one at a time in the C order of `indices`, each step
    computed and rounded in the element type (as numpy's ``ufunc.at``;
    float16 through float32, rounded each step; integers wrap; bool: add
    and max are or, mul and min are and; min and max propagate NaN as
    ``numpy.minimum`` / ``numpy.maximum`` and, between +0 and -0, take the
    update for float32 / float64 and keep the element for float16, as
    numpy 1.24 does on x86-64;
    complex types have no min or max): the result is bit for bit the same
    on every device and run.
duplicates : {'error', 'last'}, optional
    Under reduction 'none', what two entries with one target mean: 'error'
    (the default; ONNX says indices must not repeat) raises ValueError
    naming both positions and the target; 'last' lets the later entry in C
    order win, as numpy's fancy assignment and ``put_along_axis`` do.
out : ndarray or pyopencl.array.Array, optional
    Where to write the result, shape and dtype of `data`; may be `data`
    itself (in place: only the updated elements are written). Returned."""

_RAISES = """\
IndexError
    An index out of bounds, named with its position in `indices`, its
    value, the axis and the valid range.
ValueError
    Under reduction 'none' with duplicates 'error', two entries with one
    target (the message names both and the target): every index is in
    bounds, so this is a bad value of the indices as a whole, not a bad
    subscript (hence not IndexError). Also: an unknown reduction or
    duplicates rule; shapes that break the operator's rules; `out` of the
    wrong shape or read-only.
TypeError
    Also: min or max on complex types; `updates` that do not cast to
    `data`'s dtype under 'same_kind' (pyopencl updates: any other dtype).
"""

scatter_elements.__doc__ = """\
Write (or reduce) `updates` into a copy of `data` at the positions
`indices` give along `axis`: ONNX ``ScatterElements`` (opsets 11, 13, 16,
18) on an OpenCL device, through ``clg_scatter``.

For every position ``idx`` of `indices`, the target is ``idx`` with
``idx[axis]`` replaced by ``indices[idx]``:
``out[target] = updates[idx]`` (reduction 'none'; numpy's
``put_along_axis(a, indices, updates, axis)`` with duplicates 'last') or
``out[target] = out[target] (op) updates[idx]`` (``np.add.at`` etc. with
the same targets). All indices, and the repeats, are checked before
anything is written.

Parameters
----------
data : array_like or pyopencl.array.Array, shape (Ni..., M, Nk...)
    Rank r >= 1.
indices : array_like or pyopencl.array.Array of int32 or int64, shape (Ni'..., J, Nk'...)
    Rank r; off `axis` each dimension at most `data`'s (ONNX; no
    broadcasting). Negative indices count from the back.
updates : array_like or pyopencl.array.Array, shape of `indices`
    Same shape as `indices` (no broadcasting, as ONNX).
axis : int, optional
    Negative counts from the back. Default 0.
{common}
{keywords}

Returns
-------
out : ndarray or pyopencl.array.Array
    Shape and dtype of `data`.

Raises
------
{raises}numpy.exceptions.AxisError
    `axis` outside ``[-r, r-1]``.
OverflowError
    `axis` outside int64's range.
{errors}

Notes
-----
{operands}
""".format(common=_COMMON, keywords=KEYWORDS, raises=_RAISES,
           errors=ERRORS_COMMON, operands=OPERANDS)

scatter_nd.__doc__ = """\
Write (or reduce) slices of `updates` into a copy of `data` at the places
the index tuples name: ONNX ``ScatterND`` (opsets 11, 13, 16, 18) on an
OpenCL device, through ``clg_scatter``; TensorFlow's
``tensor_scatter_nd_update`` / ``_add`` / ``_min`` / ``_max``.

With ``k = indices.shape[-1]``, tuple ``i`` (``indices[i]``, i over
``indices.shape[:-1]``) names the slice ``out[indices[i]]`` of shape
``data.shape[k:]``, which becomes ``updates[i]`` (reduction 'none') or
``out[indices[i]] (op) updates[i]``, in the C order of `indices` (numpy:
``np.add.at(out, tuple(indices.T), updates)`` etc.). All indices, and the
repeats, are checked before anything is written.

Parameters
----------
data : array_like or pyopencl.array.Array, shape (D..., S...)
    Rank r >= 1.
indices : array_like or pyopencl.array.Array of int32 or int64, shape (N..., k)
    Rank q >= 1, ``1 <= k <= r``; component j is checked against
    ``[-d, d-1]``, ``d = data.shape[j]``.
updates : array_like or pyopencl.array.Array, shape (N..., S...)
    ``indices.shape[:-1] + data.shape[k:]`` exactly.
{common}
{keywords}

Returns
-------
out : ndarray or pyopencl.array.Array
    Shape and dtype of `data`.

Raises
------
{raises}{errors}

Notes
-----
{operands}
""".format(common=_COMMON, keywords=KEYWORDS, raises=_RAISES,
           errors=ERRORS_COMMON, operands=OPERANDS)

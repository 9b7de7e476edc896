"""PyTorch's gathers under PyTorch's own names and argument order:
``embedding_bag`` (``torch.nn.functional.embedding_bag``), ``gather``
(``torch.gather``), ``index_select`` (``torch.index_select``) and
``scatter_add`` (``torch.scatter_add`` / ``Tensor.scatter_add``), run on an
OpenCL device by clgather, every index checked before anything is written.

Tensors in, tensors out: torch tensors (CPU) give torch tensors, byte for
byte torch's own result; numpy arrays and other DLPack producers work too
and give numpy arrays (see ``clgather``'s docstring). torch itself is only
needed to pass or get tensors: this module imports without it.

Differences from torch, all documented per function:

- the forward only: a tensor that requires grad is read detached, the
  result has no ``grad_fn`` (options that only shape the gradient,
  ``sparse_grad``, ``sparse``, ``scale_grad_by_freq``, are accepted and
  have no effect);
- negative indices in ``gather``, ``index_select`` and ``scatter_add``
  count from the back (ONNX's rule; torch raises for them);
  ``embedding_bag`` refuses them, as torch does;
- int32 indices are taken wherever torch takes int64 ones;
- errors are clgather's (``IndexError`` for an index out of bounds, naming
  its position, value and the valid range; ``ValueError``,
  ``TypeError``...), not torch's RuntimeError, and on any error the output
  (``out=``, or ``input`` itself in place) is left as it was.
"""

import numpy as np

from . import _lib
from ._bag import embedding_bag as _embedding_bag
from ._call import Call, normalize_axis, operand, output_shape
from ._gather import take as _take
from ._scatter import scatter_elements as _scatter_elements
from ._tensors import accepts_tensors

__all__ = ["embedding_bag", "gather", "index_select", "scatter_add"]


def _array(x):
    """x as it is when it has a shape (numpy, pyopencl: what the wrapper
    leaves), else numpy.asarray(x) (a list)."""
    return x if hasattr(x, "ndim") else np.asarray(x)

_COMMON_RAISES = """\
TypeError
    An element type clgather does not take (torch's uint8..bool, int8-64,
    float16, bfloat16, float32, float64, complex64, complex128 all are),
    indices that are not int32 or int64, `out` of another dtype.
ValueError
    A tensor on another device than the CPU, `out` of the wrong shape or
    one that requires grad.
RuntimeError
    No OpenCL device, or an OpenCL call failed.

Every exception for a library status has ``.status`` and
``.status_name``; on any error `out` is untouched."""


def gather(input, dim, index, *, sparse_grad=False, out=None):
    del sparse_grad  # a gradient's option: no effect on the forward
    call = Call((input, index), out, None, None, None)
    data = call.add(operand(input, "input"))
    idx = call.add(operand(index, "index", index=True))
    params = _lib.Params(_lib.OP_GATHER_ELEMENTS,
                         normalize_axis(dim, max(data.ndim, 1)), 0, 0)
    output = call.output(output_shape(params, data, idx), data.dtype)
    return call.run(_lib.clg_run, params, [data, idx], output)


gather.__doc__ = """\
Gather values along `dim`: ``torch.gather(input, dim, index)``, run as
ONNX ``GatherElements`` on an OpenCL device.

``out[i][j][k] = input[index[i][j][k]][j][k]`` (dim 0), and likewise for
the other dims.

Parameters
----------
input : torch.Tensor (or numpy / DLPack array), shape (N0, ..., Nr-1)
    Any element type clgather takes, bfloat16 and float16 included; read in
    place (its strides as they are).
dim : int
    The axis to index along, negative counting from the back.
index : torch.Tensor of int64 (or int32), rank r
    ``index.shape[d] <= input.shape[d]`` for every ``d != dim`` (torch's
    rule, no broadcasting). Each value in ``[-s, s-1]``, ``s =
    input.shape[dim]``; negative values count from the back (torch raises
    for them).
sparse_grad : bool
    torch's gradient option: accepted, no effect (the forward only).
out : torch.Tensor, optional
    Shape of `index`, dtype of `input`; written in place and returned.

Returns
-------
torch.Tensor, shape of `index`, dtype of `input`
    A new tensor (or `out`); no ``grad_fn``.

Raises
------
IndexError
    An index outside ``[-s, s-1]``, named with its position, value and
    the valid range; nothing is written.
ValueError
    `index` of another rank, or longer than `input` off `dim`.
numpy.exceptions.AxisError
    `dim` out of range.
{raises}
""".format(raises=_COMMON_RAISES)


def index_select(input, dim, index, *, out=None):
    index = _array(index)
    if index.ndim > 1:
        raise ValueError("clgather: index_select's index must be 1-d (or "
                         "0-d), not of shape %s" % (tuple(index.shape),))
    return _take(input, index.reshape((1,)) if index.ndim == 0 else index,
                 axis=dim, out=out)


index_select.__doc__ = """\
The entries of `input` along `dim` at `index`: ``torch.index_select(input,
dim, index)``, run as ONNX ``Gather`` on an OpenCL device (``clgather.take``
with ``axis=dim``).

Parameters
----------
input : torch.Tensor (or numpy / DLPack array), shape (N0, ..., Nr-1)
    Any element type clgather takes, bfloat16 and float16 included; read in
    place.
dim : int
    The axis to select along, negative counting from the back.
index : torch.Tensor of int64 (or int32), shape (K,) or ()
    1-d as torch asks (a 0-d index is one entry, as torch takes it). Each
    value in ``[-s, s-1]``, ``s = input.shape[dim]``; negative values count
    from the back (torch raises for them).
out : torch.Tensor, optional
    Shape ``input.shape`` with ``K`` at `dim`, dtype of `input`; written in
    place and returned.

Returns
-------
torch.Tensor, ``input.shape[:dim] + (K,) + input.shape[dim+1:]``
    A new tensor (or `out`), dtype of `input`; no ``grad_fn``.

Raises
------
IndexError
    An index outside ``[-s, s-1]``, named with its position, value and
    the valid range; nothing is written.
ValueError
    `index` of rank 2 or more.
numpy.exceptions.AxisError
    `dim` out of range.
{raises}
""".format(raises=_COMMON_RAISES)


def scatter_add(input, dim, index, src, *, out=None):
    index, src = _array(index), _array(src)
    # torch reads src only where index has entries: its leading block of
    # index's shape (a view, no copy), which is what ONNX's
    # ScatterElements calls updates.
    if src.ndim != index.ndim:
        raise ValueError("clgather: scatter_add: src has rank %d; index has "
                         "rank %d" % (src.ndim, index.ndim))
    if any(n > m for n, m in zip(index.shape, src.shape)):
        raise ValueError("clgather: scatter_add: index of shape %s is "
                         "larger than src of shape %s"
                         % (tuple(index.shape), tuple(src.shape)))
    src = src[tuple(slice(0, n) for n in index.shape)]
    return _scatter_elements(input, index, src, axis=dim, reduction="add",
                             out=out)


scatter_add.__doc__ = """\
Add the values of `src` into a copy of `input` at the positions `index`
gives along `dim`: ``torch.scatter_add(input, dim, index, src)`` (and
``input.scatter_add(dim, index, src)``; ``out=input`` is torch's in-place
``scatter_add_``), run as ONNX ``ScatterElements`` with reduction ``add``.

``out[index[i][j][k]][j][k] += src[i][j][k]`` (dim 0), and likewise for the
other dims. Repeated targets add up in the C order of `index`, each step
rounded in the element type (float16 and bfloat16 through float32), as
torch's CPU kernel does: byte for byte torch's result, on every device.

Parameters
----------
input : torch.Tensor (or numpy / DLPack array), shape (N0, ..., Nr-1)
    Not modified (unless it is `out`).
dim : int
    The axis along which to index, negative counting from the back.
index : torch.Tensor of int64 (or int32), rank r
    ``index.shape[d] <= src.shape[d]`` for every d and ``<= input.shape[d]``
    for ``d != dim`` (torch's rules). Each value in ``[-s, s-1]``, ``s =
    input.shape[dim]``; negative values count from the back (torch raises
    for them).
src : torch.Tensor, rank r, dtype of `input`
    Only its leading block of `index`'s shape is read (as torch), in place.
out : torch.Tensor, optional
    Shape and dtype of `input`; may be `input` itself (in place: only the
    targets are written). Returned.

Returns
-------
torch.Tensor, shape and dtype of `input`
    A new tensor (or `out`); no ``grad_fn``.

Raises
------
IndexError
    An index outside ``[-s, s-1]``, named with its position, value and
    the valid range; nothing is written (`out`, or `input` in place, keeps
    every byte).
ValueError
    Ranks or shapes that break the rules above.
numpy.exceptions.AxisError
    `dim` out of range.
{raises}
""".format(raises=_COMMON_RAISES)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False,
                  padding_idx=None, *, out=None):
    if max_norm is not None:
        raise NotImplementedError(
            "clgather: embedding_bag's max_norm renormalizes rows of weight "
            "in place before the lookup; clgather does not write weight "
            "(max_norm must be None)")
    del norm_type, scale_grad_by_freq, sparse  # max_norm's, gradient's
    return _embedding_bag(input, weight, offsets, mode, per_sample_weights,
                          include_last_offset, padding_idx, out)


embedding_bag.__doc__ = """\
Sums, means or maxima of bags of rows of `weight`:
``torch.nn.functional.embedding_bag``, under its own argument order, run on
an OpenCL device by ``clgather.embedding_bag`` (``clg_embedding_bag``): rows
gathered and reduced in index order, byte for byte torch's CPU result.

Parameters
----------
input : torch.Tensor of int64 (or int32), shape (N,) with `offsets`, or (B, L)
    Rows of `weight`, each in ``[0, num_embeddings - 1]`` (negative ones
    are an IndexError, as torch refuses them). 2-d: B bags of L entries.
weight : torch.Tensor, shape (num_embeddings, D), float32, float64,
    float16 or bfloat16. Read in place (its strides as they are).
offsets : torch.Tensor of int64 (or int32), shape (B,) or (B + 1,), optional
    The start of each bag in a 1-d `input` (non-decreasing, the first 0).
max_norm : None
    Only None: torch renormalizes `weight` in place for it
    (NotImplementedError otherwise).
norm_type, scale_grad_by_freq, sparse
    Accepted for torch's order; no effect (max_norm's option and
    gradient options).
mode : {{'sum', 'mean', 'max'}}
    The reduction; an empty bag gives +0 (as torch).
per_sample_weights : torch.Tensor, shape of `input`, dtype of `weight`, optional
    Each entry's factor (mode 'sum' only, as torch).
include_last_offset : bool
    `offsets` has B + 1 entries, the last being N (torch's CSR form).
padding_idx : int, optional
    Entries equal to it are left out of their bag (and of a mean's count);
    negative counts from the back.
out : torch.Tensor, optional, shape (B, D), dtype of `weight`
    Written in place and returned (not a torch argument).

Returns
-------
torch.Tensor, shape (B, D), dtype of `weight`
    A new tensor (or `out`); no ``grad_fn``.

Raises
------
IndexError
    An index outside ``[0, num_embeddings - 1]``, named with its position,
    value and the valid range; nothing is written.
ValueError
    Offsets that are not a valid partition of `input`, per_sample_weights
    with a mode other than 'sum', shapes that do not fit.
NotImplementedError
    `max_norm` not None.
{raises}
""".format(raises=_COMMON_RAISES)

gather = accepts_tensors(gather)
index_select = accepts_tensors(index_select)
scatter_add = accepts_tensors(scatter_add)
embedding_bag = accepts_tensors(embedding_bag)

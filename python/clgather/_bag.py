"""The bag reductions, through clg_embedding_bag (clgather/clgather_bag.h):
embedding_bag (PyTorch's torch.nn.functional.embedding_bag) and
sparse_segment_reduce (TensorFlow's tf.math.sparse_segment_sum / _mean /
_sqrt_n)."""

import operator

import numpy as np

from . import _lib
from ._call import Call, _dtype_name, Operand, choose, dense_operand, is_cl, operand


def _rows(op, shape):
    """op (dense) seen with another shape of the same elements, from the
    same address: the leading rows of a C-ordered array, or its elements
    regrouped."""
    return Operand(shape, op.dtype, host=op.host, cl=op.cl)


def _weights(x, dtype):
    """per_sample_weights as an Operand of weight's dtype (a view in place,
    as every operand of embedding_bag): host values cast under numpy's
    'same_kind' rule (a Python list of floats is float64); pyopencl ones
    must match (the library says so)."""
    if is_cl(x):
        return operand(x, "per_sample_weights")
    arr = np.asarray(x)
    if arr.dtype != dtype:
        if not np.can_cast(arr.dtype, dtype, "same_kind"):
            raise TypeError("clgather: cannot cast per_sample_weights from "
                            "dtype %s to %s according to the rule "
                            "'same_kind'" % (_dtype_name(arr.dtype),
                                             _dtype_name(dtype)))
        arr = arr.astype(dtype)
    return operand(arr, "per_sample_weights")


def _last_value(op, call, wait_for):
    """The last element of a dense 1-d index Operand, as a Python int; a
    pyopencl one is read back (blocking, after its events and
    `wait_for`)."""
    if op.cl is None:
        return int(op.host.reshape(-1)[-1])
    import pyopencl as cl
    host = np.empty(1, op.dtype)
    cl.enqueue_copy(call.queue, host, op.cl.base_data,
                    src_offset=op.cl.offset
                    + (op.shape[0] - 1) * op.dtype.itemsize,
                    wait_for=list(op.cl.events) + list(wait_for or ()),
                    is_blocking=True)
    return int(host[0])


def _run(call, params, weight, indices, bags, psw, output, outcome):
    return call.run(_lib.clg_embedding_bag, params,
                    [weight, indices, bags, psw], output, outcome=outcome,
                    async_fn=_lib.clg_embedding_bag_async)


def _quantized_dim(w, fmt):
    """The dim of a table quantized per row (uint8 [E, row_bytes])."""
    if w.dtype != np.uint8:
        raise TypeError("clgather: a weight of weight_format %r is the "
                        "uint8 bytes of its prepacked rows, not %s"
                        % (_format_name(fmt), w.dtype.name))
    tail = _lib.BAG_QROW_TAIL[fmt]
    if w.shape[1] < tail:
        raise ValueError("clgather: weight's rows of %d bytes cannot hold "
                         "weight_format %r's scale and bias (%d bytes)"
                         % (w.shape[1], _format_name(fmt), tail))
    return (w.shape[1] - tail) * _lib.BAG_QROW_PER_BYTE[fmt]


def _format_name(fmt):
    return {v: k for k, v in _lib.BAG_WEIGHT_FORMATS.items()}[fmt]


def embedding_bag(input, weight, offsets=None, mode="mean",
                  per_sample_weights=None, include_last_offset=False,
                  padding_idx=None, out=None, *, weight_format="dense",
                  context=None, queue=None, wait_for=None, outcome=None):
    params = _lib.BagParams()
    params.mode = choose(mode, _lib.BAG_MODES, "mode")
    fmt = choose(weight_format, _lib.BAG_WEIGHT_FORMATS, "weight_format")
    params.weight_format = fmt
    call = Call((input, weight, offsets, per_sample_weights), out, context,
                queue, wait_for)
    w = call.add(operand(weight, "weight"))
    if w.ndim != 2:
        raise ValueError("clgather: weight must be 2-d (num_embeddings, "
                         "dim), not of shape %s" % (w.shape,))
    # A quantized table gives float32 rows of dim values.
    dim = _quantized_dim(w, fmt) if fmt else w.shape[1]
    out_dtype = np.dtype(np.float32) if fmt else w.dtype
    idx = call.add(operand(input, "input", index=True))
    psw = None
    if per_sample_weights is not None:
        psw = call.add(_weights(per_sample_weights, out_dtype))
        if psw.shape != idx.shape:
            raise ValueError("clgather: per_sample_weights has shape %s; "
                             "input has shape %s" % (psw.shape, idx.shape))
    bags = None
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError("clgather: input is 2-d (one bag per row, of "
                             "fixed size): offsets must be None")
        if include_last_offset:
            # PyTorch 1.13 takes the rows' offsets [0, L, ..., (B-1)L] with
            # the last as the end of the bags: B - 1 bags summed, but mean
            # counts the last bag's entries up to the end of input and max
            # corrupts its heap. Outside its documented contract (the last
            # offset equal to N): refused, as clg_embedding_bag does.
            raise ValueError("clgather: include_last_offset needs a 1-d "
                             "input with offsets (a 2-d input has no last "
                             "offset)")
        params.form = _lib.BAGS_FIXED
        nbags = idx.shape[0]
    elif idx.ndim == 1:
        if offsets is None:
            raise ValueError("clgather: input is 1-d: offsets (the start "
                             "of each bag in input) are needed")
        params.form = _lib.BAGS_OFFSETS
        bags = call.add(operand(offsets, "offsets", index=True))
        if bags.ndim != 1:
            raise ValueError("clgather: offsets must be 1-d, not of shape "
                             "%s" % (bags.shape,))
        nbags = bags.shape[0]
        if include_last_offset:
            if nbags == 0:
                raise ValueError("clgather: include_last_offset needs at "
                                 "least one offset")
            nbags -= 1
            params.flags |= _lib.BAG_INCLUDE_LAST_OFFSET
    else:
        raise ValueError("clgather: input must be 1-d (with offsets) or 2-d "
                         "(fixed-size bags), not of shape %s" % (idx.shape,))
    if padding_idx is not None:
        params.flags |= _lib.BAG_PADDING_IDX
        params.padding_idx = _lib.int64(padding_idx, "padding_idx")
    output = call.output((nbags, dim), out_dtype)
    return _run(call, params, w, idx, bags, psw, output, outcome)


_TORCH_MODES = {0: "sum", 1: "mean", 2: "max"}


def _torch_quantized(fmt, weight, indices, offsets, scale_grad_by_freq,
                     mode, pruned_weights, per_sample_weights,
                     compressed_indices_mapping, include_last_offset):
    if pruned_weights or compressed_indices_mapping is not None:
        raise NotImplementedError("clgather: pruned tables "
                                  "(compressed_indices_mapping) are not "
                                  "supported")
    if mode not in _TORCH_MODES:
        raise ValueError("clgather: mode must be 0 (sum), 1 (mean) or 2 "
                         "(max), not %r" % (mode,))
    del scale_grad_by_freq  # a gradient's option: no effect on the forward
    return embedding_bag(indices, weight, offsets, _TORCH_MODES[mode],
                         per_sample_weights, include_last_offset,
                         weight_format=fmt)


def embedding_bag_byte_rowwise_offsets(
        weight, indices, offsets=None, scale_grad_by_freq=False, mode=0,
        pruned_weights=False, per_sample_weights=None,
        compressed_indices_mapping=None, include_last_offset=False):
    """torch.ops.quantized.embedding_bag_byte_rowwise_offsets, under its
    own name and argument order: weight the uint8 rows of
    torch.ops.quantized.embedding_bag_byte_prepack ([E, dim + 8]: dim codes,
    a float32 scale, a float32 bias), float32 output [B, dim], bit for bit
    torch's for mode 0 (sum) with or without per_sample_weights. Modes 1
    (mean) and 2 (max) give the mean and the max (PyTorch 1.13 returns the
    sum for both). Pruned tables are not supported."""
    return _torch_quantized("int8-rowwise", weight, indices, offsets,
                            scale_grad_by_freq, mode, pruned_weights,
                            per_sample_weights, compressed_indices_mapping,
                            include_last_offset)


def embedding_bag_4bit_rowwise_offsets(
        weight, indices, offsets=None, scale_grad_by_freq=False, mode=0,
        pruned_weights=False, per_sample_weights=None,
        compressed_indices_mapping=None, include_last_offset=False):
    """torch.ops.quantized.embedding_bag_4bit_rowwise_offsets, as
    embedding_bag_byte_rowwise_offsets for the rows of
    embedding_bag_4bit_prepack ([E, dim / 2 + 4]: two codes a byte, low
    nibble first, a float16 scale and bias)."""
    return _torch_quantized("int4-rowwise", weight, indices, offsets,
                            scale_grad_by_freq, mode, pruned_weights,
                            per_sample_weights, compressed_indices_mapping,
                            include_last_offset)


def embedding_bag_2bit_rowwise_offsets(
        weight, indices, offsets=None, scale_grad_by_freq=False, mode=0,
        pruned_weights=False, per_sample_weights=None,
        compressed_indices_mapping=None, include_last_offset=False):
    """torch.ops.quantized.embedding_bag_2bit_rowwise_offsets, as
    embedding_bag_byte_rowwise_offsets for the rows of
    embedding_bag_2bit_prepack ([E, dim / 4 + 4]: four codes a byte, low
    bits first, a float16 scale and bias)."""
    return _torch_quantized("int2-rowwise", weight, indices, offsets,
                            scale_grad_by_freq, mode, pruned_weights,
                            per_sample_weights, compressed_indices_mapping,
                            include_last_offset)


def sparse_segment_reduce(data, indices, segment_ids, mode="sum",
                          num_segments=None, out=None, *, context=None,
                          queue=None, wait_for=None, outcome=None):
    params = _lib.BagParams()
    params.mode = choose(mode, _lib.BAG_MODES, "mode")
    params.form = _lib.BAGS_SEGMENT_IDS
    call = Call((data, indices, segment_ids), out, context, queue, wait_for)
    d = call.add(dense_operand(data, "data"))
    if d.ndim < 1:
        raise ValueError("clgather: data must have rank 1 or more")
    inner = d.shape[1:]
    w = _rows(d, (d.shape[0], int(np.prod(inner, dtype=np.int64))))
    idx = call.add(dense_operand(indices, "indices", index=True))
    seg = call.add(dense_operand(segment_ids, "segment_ids", index=True))
    if idx.ndim != 1 or seg.ndim != 1:
        raise ValueError("clgather: indices and segment_ids must be 1-d, "
                         "not of shapes %s and %s" % (idx.shape, seg.shape))
    if idx.shape != seg.shape:
        raise ValueError("clgather: segment_ids has shape %s; indices has "
                         "shape %s" % (seg.shape, idx.shape))
    if num_segments is None:
        # TensorFlow's default; a negative last id gives 0 segments, and
        # the library then names the id that is out of [0, 0).
        nseg = _last_value(seg, call, wait_for) + 1 if seg.shape[0] else 0
        nseg = max(nseg, 0)
    else:
        nseg = operator.index(num_segments)
        if nseg < 0:
            raise ValueError("clgather: num_segments must be >= 0, not %d"
                             % nseg)
    output = call.output((nseg,) + inner, d.dtype, dense=True)
    flat = _rows(output, (nseg, w.shape[1]))
    return _run(call, params, w, idx, seg, None, flat, outcome)


_BAG_KEYWORDS = """\
context : clgather.Context, optional
    The device to run on. Default: for numpy operands the module's default
    context (``default_context()``); for pyopencl operands a context on
    their queue's ``cl_context`` and device, kept for the process.
queue : pyopencl.CommandQueue, optional
    The command queue (on `context`'s context and device). Default: the
    first pyopencl operand's queue, else the context's own queue.
wait_for : list of pyopencl.Event, optional
    Events every command of the call waits for, besides the pyopencl
    operands' own ``events``.
outcome : clgather.Outcome, optional
    ``clg_embedding_bag_async``: with pyopencl indices, bags and `out`
    the values are checked on the device and the reduction is gated on
    their verdict: the call returns without a host wait, and
    ``outcome.wait()`` raises the IndexError or ValueError the call would
    have raised (`out` untouched). Otherwise every check is made before
    the call returns, which raises as without `outcome`, and
    ``outcome.wait()`` succeeds."""

_BAG_ERRORS = """\
TypeError
    `weight` (`data`) not float16, float32 or float64 (bfloat16 has no
    numpy dtype); indices, offsets or segment ids not int32 or int64;
    `out` or pyopencl `per_sample_weights` of another dtype.
RuntimeError
    No OpenCL device, an OpenCL call failed (also: a failed event in the
    wait list), a kernel failed to build.
MemoryError
    A host allocation of the library failed.

Each exception raised for a library status has ``.status`` (the
``clg_status`` number) and ``.status_name``. On any error `out` is
untouched: the bags and every index are checked before any kernel runs."""

_ARITHMETIC = """\
The result is the same bits on every device (``clgather_bag.h``): each bag
is reduced one entry at a time in the order of the indices, each step one
IEEE 754 operation rounded to nearest even: sum from +0 (float16 summed in
float32 and rounded once at the end; with `per_sample_weights` a fused
multiply-add per entry); mean and sqrt_n divide that sum, rounded to the
dtype, by the count (or its square root), float16 in float32; max per
element (NaN propagates; +0 above -0). The count leaves out entries equal
to `padding_idx`. An empty bag (or one of padding entries only) gives +0
in every mode. float16 and float32 mean and sqrt_n need a device with
correctly rounded float32 division and square root, or doubles to divide
through; float32 one that keeps subnormals (else TypeError); float64 needs
``cl_khr_fp64``.

Operands: numpy arrays (or anything ``numpy.asarray`` takes) are host
tensors and make the call blocking; pyopencl ``Array``\\ s are cl_mem
tensors, read in place at their ``offset``. Views (sliced, transposed,
reversed) are passed with their strides, numpy's and pyopencl's alike
(``clg_strided_tensor``): a column block of a pyopencl table or `out` is
read or written in place, any other view through one copy on the device
(``embedding_bag``; ``sparse_segment_reduce`` copies numpy views to C
order and refuses non-contiguous pyopencl arrays), and a view's gaps are
never written. With a pyopencl operand the result is a pyopencl ``Array`` on
the same queue carrying the library's event; pyopencl indices and bags are
read back to the host for the checks below 32 KiB (after the wait list),
checked on the device by a kernel whose verdict is read back above, then
the kernel is enqueued and the call returns without waiting for it."""

embedding_bag.__doc__ = """\
Sums, means or maxima of bags of rows of an embedding table:
``torch.nn.functional.embedding_bag`` (same arguments, same results) on an
OpenCL device, through ``clg_embedding_bag``.

``out[b] = reduce(weight[input[i]] for i in bag b)``. Bags: with a 1-d
`input`, bag b is ``input[offsets[b]:offsets[b+1]]`` (the last one ending
at ``len(input)``); with a 2-d `input`, bag b is row b. Every offset and
every index is checked before any kernel runs.

Parameters
----------
input : array_like or pyopencl.array.Array of int32 or int64, shape (N,) or (B, L)
    Rows of `weight`, each in ``[0, num_embeddings - 1]``; negative
    indices are errors, as in PyTorch.
weight : array_like or pyopencl.array.Array, shape (num_embeddings, dim)
    float16, float32 or float64; with a quantized `weight_format`, uint8
    of shape (num_embeddings, row_bytes): PyTorch's prepacked rows
    (``torch.ops.quantized.embedding_bag_byte_prepack``: dim codes, a
    float32 scale and bias, row_bytes = dim + 8; ``_4bit_prepack``: two
    codes a byte, low nibble first, a float16 scale and bias, row_bytes =
    dim / 2 + 4; ``_2bit_prepack``: four a byte, row_bytes = dim / 4 + 4).
offsets : array_like or pyopencl.array.Array of int32 or int64, shape (B,), optional
    With a 1-d `input` (needed): where each bag starts; ``offsets[0] ==
    0``, non-decreasing, none above N. With a 2-d `input`: must be None.
mode : {{'mean', 'sum', 'max', 'sqrt_n'}}, optional
    The reduction; 'mean' by default (PyTorch's). 'sqrt_n' (not in
    PyTorch): the sum divided by the square root of the count.
per_sample_weights : array_like or pyopencl.array.Array, optional
    `input`'s shape, cast to `weight`'s dtype (numpy 'same_kind'); each row
    is scaled by its entry's weight. Mode 'sum' only (PyTorch).
include_last_offset : bool, optional
    `offsets` has B + 1 entries, the last equal to N (PyTorch's
    ``include_last_offset``, its CSR form). 1-d `input` only: with a 2-d
    one it is a ValueError (PyTorch 1.13 gives B - 1 bags there, its mean
    dividing the last by a count that runs to the end of `input`, its max
    corrupting memory).
padding_idx : int, optional
    Entries equal to it are skipped and not counted; in ``[-num_embeddings,
    num_embeddings - 1]``, negative counting from the back.
out : ndarray or pyopencl.array.Array, optional, shape (B, dim)
    Where to write the result; `weight`'s dtype (float32 for a quantized
    `weight_format`). Returned.
weight_format : {{'dense', 'int8-rowwise', 'int4-rowwise', 'int2-rowwise'}}, optional
    How `weight`'s rows are stored (``clg_bag_params.weight_format``):
    'dense' by default; the others are tables quantized per row, each row
    ``scale * q + bias``, summed as ``acc = fma(scale, q, acc + bias)`` in
    float32 (per-sample weights multiplied into scale and bias first):
    ``torch.ops.quantized.embedding_bag_*_rowwise_offsets``'s bits for
    'sum'. 'mean' and 'max' are the mean and the max (PyTorch 1.13's
    quantized ops return the sum for both).
{keywords}

Returns
-------
out : ndarray or pyopencl.array.Array, shape (B, dim)
    `weight`'s dtype (float32 for a quantized `weight_format`).

Raises
------
IndexError
    An index outside ``[0, num_embeddings - 1]`` (negative ones too),
    named with its position and value.
ValueError
    Offsets that break the rules above (``CLG_ERROR_INVALID_BAGS``); an
    unknown mode; `input` not 1-d or 2-d, offsets missing (1-d) or given
    (2-d), `weight` not 2-d, `per_sample_weights` of another shape or with
    a mode other than 'sum', `padding_idx` out of range,
    `include_last_offset` with no offset or a 2-d `input`, `out` of the
    wrong shape, an unknown `weight_format`, a quantized `weight`'s rows
    too short for their scale and bias.
OverflowError
    `padding_idx` outside int64's range.
{errors}

Notes
-----
{arithmetic}
""".format(keywords=_BAG_KEYWORDS, errors=_BAG_ERRORS,
           arithmetic=_ARITHMETIC)

sparse_segment_reduce.__doc__ = """\
Reduce rows of `data` picked by `indices` into segments named by sorted
`segment_ids`: TensorFlow's ``tf.math.sparse_segment_sum`` /
``sparse_segment_mean`` / ``sparse_segment_sqrt_n`` on an OpenCL device,
through ``clg_embedding_bag`` (form ``CLG_BAGS_SEGMENT_IDS``).

``out[s] = reduce(data[indices[i]] for i where segment_ids[i] == s)``; a
segment no id names is 0. Every segment id and every index is checked
before any kernel runs.

Parameters
----------
data : array_like or pyopencl.array.Array, shape (R, D...)
    Rank 1 or more; float16, float32 or float64.
indices : array_like or pyopencl.array.Array of int32 or int64, shape (N,)
    Rows of `data`, each in ``[0, R - 1]`` (negative: an error).
segment_ids : array_like or pyopencl.array.Array of int32 or int64, shape (N,)
    Non-decreasing, each in ``[0, num_segments - 1]``.
mode : {{'sum', 'mean', 'sqrt_n', 'max'}}, optional
    TensorFlow's sum (the default), mean, sqrt_n; also max.
num_segments : int, optional
    The number of segments (output rows). Default, as TensorFlow:
    ``segment_ids[-1] + 1``, 0 when there is no id (pyopencl segment ids:
    the last one is read back, blocking, after their events and
    `wait_for`).
out : ndarray or pyopencl.array.Array, optional, shape (num_segments, D...)
    Where to write the result; `data`'s dtype. Returned.
{keywords}

Returns
-------
out : ndarray or pyopencl.array.Array, shape (num_segments, D...)
    `data`'s dtype.

Raises
------
IndexError
    An index outside ``[0, R - 1]``, named with its position and value.
ValueError
    Segment ids that decrease or fall outside ``[0, num_segments - 1]``
    (``CLG_ERROR_INVALID_BAGS``); an unknown mode; `data` of rank 0,
    `indices` or `segment_ids` not 1-d or of different lengths, a
    negative `num_segments`, `out` of the wrong shape.
{errors}

Notes
-----
{arithmetic}
""".format(keywords=_BAG_KEYWORDS, errors=_BAG_ERRORS,
           arithmetic=_ARITHMETIC)

__all__ = ["embedding_bag", "sparse_segment_reduce"]

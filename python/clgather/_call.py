"""One library call from Python operands: numpy arrays (host tensors) or
pyopencl arrays (cl_mem tensors), the output, the queue, the wait list and
the returned event."""

import ctypes
import operator
import sys

import numpy as np

from . import _context, _lib


def _cl_array_type():
    mod = sys.modules.get("pyopencl.array")  # never imported for numpy use
    return getattr(mod, "Array", None)


def is_cl(x):
    t = _cl_array_type()
    return t is not None and isinstance(x, t)


def _dtype_name(dt):
    dt = np.dtype(dt)
    return "bfloat16" if dt == np.dtype("V2") else dt.name


def elem_strides(shape, byte_strides, itemsize):
    """numpy's byte strides in elements, or None where one does not divide
    by the item size (no view a kernel can read). A dimension of size 1
    has no step, so any stride of its counts (given as 0)."""
    out = []
    for n, s in zip(shape, byte_strides):
        if n == 1:
            out.append(0)
        elif s % itemsize:
            return None
        else:
            out.append(s // itemsize)
    return tuple(out)


def broadcast_axis(shape, byte_strides):
    """The first dimension longer than 1 with stride 0 (a broadcast view:
    its elements share memory), or None. An array with no element shares
    nothing (numpy gives an empty array strides of 0)."""
    if 0 in tuple(shape):
        return None
    for i, (n, s) in enumerate(zip(shape, byte_strides)):
        if n > 1 and s == 0:
            return i
    return None


def own_places(shape, strides):
    """clgather.h's rule for an output's strides (in elements): sorted by
    size, each stride exceeds the span of the smaller ones, so every
    element has memory of its own."""
    dims = sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1)
    span = 0
    for s, n in dims:
        if s <= span:
            return False
        span += s * (n - 1)
    return True


def _flat_stride(shape, strides):
    """The one stride of the 1-d view of a strided tensor's elements in C
    order, or None where they are not equally spaced (a copy is needed)."""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    if not dims:
        return 1
    for (_, outer), (n, inner) in zip(dims, dims[1:]):
        if outer != inner * n:
            return None
    return dims[-1][1]


class Operand:
    """A tensor as the library sees it: shape, dtype, and either a host
    array (numpy; its address is element [0, ..., 0]) or a cl_mem + byte
    offset (a pyopencl Array), dense in C order when `strides` is None,
    else with `strides` in elements (clg_strided_tensor). Keeps what it
    points to alive."""

    def __init__(self, shape, dtype, host=None, cl=None, strides=None):
        self.shape, self.dtype = tuple(int(d) for d in shape), np.dtype(dtype)
        self.host, self.cl = host, cl
        self.strides = None if strides is None else tuple(
            int(s) for s in strides)

    def reshape(self, shape):
        """Only the flattening axis=None asks for: a view where the
        elements are equally spaced, else a copy (numpy) or an error
        (pyopencl, which copies no strided array)."""
        shape = tuple(shape)
        if self.strides is None:
            return Operand(shape, self.dtype, self.host, self.cl)
        step = _flat_stride(self.shape, self.strides) \
            if len(shape) == 1 else None
        if step is not None:
            return Operand(shape, self.dtype, self.host, self.cl, (step,))
        if self.host is not None:
            return Operand(shape, self.dtype,
                           host=np.ascontiguousarray(self.host))
        raise ValueError(
            "clgather: axis=None flattens the array, and a pyopencl view of "
            "shape %s with strides %s (elements) cannot be flattened without "
            "a copy: pass a C-contiguous array or an axis"
            % (self.shape, self.strides))

    def broadcast_to(self, shape):
        """This operand at `shape` (same rank), as numpy's broadcast_to: a
        view with stride 0 on each dimension of 1 that is broadcast,
        numpy's or pyopencl's alike; nothing is copied."""
        shape = tuple(int(n) for n in shape)
        strides = self.strides
        if strides is None:
            strides, step = [], 1
            for n in reversed(self.shape):
                strides.insert(0, step)
                step *= max(n, 1)
        strides = [s if n == m else 0
                   for n, m, s in zip(self.shape, shape, strides)]
        return Operand(shape, self.dtype, self.host, self.cl, strides)

    @property
    def ndim(self):
        return len(self.shape)

    def tensor(self, dtype_code):
        """The clg_tensor to pass: a Tensor, or the `tensor` member of a
        StridedTensor (which it keeps alive through ctypes' _b_base_)."""
        t = _lib.Tensor()
        t.dtype = dtype_code
        t.rank = len(self.shape)
        for i, d in enumerate(self.shape[:_lib.CLG_MAX_RANK]):
            t.shape[i] = d
        if self.cl is not None and self.cl.base_data is not None:
            t.storage = _lib.STORAGE_BUFFER
            t.buffer = self.cl.base_data.int_ptr
            t.offset = self.cl.offset
        else:  # a host array, or a pyopencl array with no bytes (no buffer)
            t.storage = _lib.STORAGE_HOST
            t.host = self.host.ctypes.data if self.host is not None else None
            if self.host is None:
                return t  # no elements: no strides to speak of
        if self.strides is None:
            return t
        v = _lib.StridedTensor()
        v.tensor = t
        v.tensor.storage = (_lib.STORAGE_BUFFER_STRIDED
                            if t.storage == _lib.STORAGE_BUFFER
                            else _lib.STORAGE_HOST_STRIDED)
        for i, s in enumerate(self.strides[:_lib.CLG_MAX_RANK]):
            v.strides[i] = s
        return v.tensor


def _cl_operand(x, role):
    """A pyopencl array as it is: dense, or a view with strides in elements
    and an aligned offset; any other is refused (pyopencl copies no
    strided array, and the library reads no element off its alignment)."""
    if x.flags.c_contiguous or x.size == 0:
        return Operand(x.shape, x.dtype, cl=x)
    size = x.dtype.itemsize
    strides = elem_strides(x.shape, x.strides, size)
    if strides is None:
        raise ValueError(
            "clgather: %s: a pyopencl view with byte strides %s, not "
            "multiples of its %d-byte elements, cannot be read in place "
            "(and pyopencl cannot copy it): pass a C-contiguous array"
            % (role, tuple(x.strides), size))
    unit = min(size, 8)
    if x.offset % unit:
        raise ValueError(
            "clgather: %s: a pyopencl view at byte offset %d, not a multiple "
            "of %d, cannot be read in place (and pyopencl cannot copy it): "
            "pass a C-contiguous array" % (role, x.offset, unit))
    return Operand(x.shape, x.dtype, cl=x, strides=strides)


def operand(x, role, index=False):
    """x as an Operand. role names it in messages ("data", "indices").
    A view (transposed, sliced, reversed, broadcast) is passed in place
    with its strides; a host array whose byte strides do not divide by the
    item size, or that is misaligned or byte-swapped, is copied to C
    order."""
    if is_cl(x):
        _check_dtype(x.dtype, role, index)
        return _cl_operand(x, role)
    if isinstance(x, np.ndarray):
        arr = x
    else:
        arr = np.asarray(x)
        if index and arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)  # [] as indices, as numpy takes it
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    _check_dtype(arr.dtype, role, index)
    if arr.flags.aligned:
        if arr.flags.c_contiguous:
            return Operand(arr.shape, arr.dtype, host=arr)
        strides = elem_strides(arr.shape, arr.strides, arr.itemsize)
        if strides is not None:
            return Operand(arr.shape, arr.dtype, host=arr, strides=strides)
    arr = np.require(arr, requirements=["C", "A"])  # a copy
    return Operand(arr.shape, arr.dtype, host=arr)


def dense_operand(x, role, index=False):
    """x as a dense (C-contiguous) Operand, for a call that takes no
    strided tensor (EmbeddingBag): a numpy view is copied to C order; a
    pyopencl view is a ValueError (pyopencl copies no strided array)."""
    if is_cl(x):
        _check_dtype(x.dtype, role, index)
        if not (x.flags.c_contiguous or x.size == 0):
            raise ValueError(
                "clgather: %s: a pyopencl view with strides %s is not "
                "C-contiguous, and this operator reads dense tensors only "
                "(pyopencl cannot copy it): pass a C-contiguous array"
                % (role, tuple(x.strides)))
        return Operand(x.shape, x.dtype, cl=x)
    op = operand(x, role, index)
    if op.strides is not None:
        op = Operand(op.shape, op.dtype,
                     host=np.ascontiguousarray(op.host))
    return op


def _check_dtype(dt, role, index):
    dt = np.dtype(dt)
    if index:
        if dt not in _lib.INDEX_DTYPES:
            raise TypeError("clgather: %s must be int32 or int64, not %s"
                            % (role, _dtype_name(dt)))
    elif dt not in _lib.DTYPES:
        raise TypeError(
            "clgather: %s has dtype %s; supported: %s" % (
                role, _dtype_name(dt),
                ", ".join(sorted(_dtype_name(d) for d in _lib.DTYPES))))


def normalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _lib.AxisError(axis, ndim)
    return axis + ndim if axis < 0 else axis


def choose(value, table, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError("clgather: %s must be one of %s, not %r"
                         % (what, ", ".join(map(repr, table)), value)) \
            from None


def output_shape(params, data, indices):
    """clg_output_shape: the operator's shape rules, with the library's
    errors and messages."""
    ds = (ctypes.c_int64 * max(1, data.ndim))(*data.shape)
    ixs = (ctypes.c_int64 * max(1, indices.ndim))(*indices.shape)
    rank = ctypes.c_int32()
    out = (ctypes.c_int64 * _lib.CLG_MAX_RANK)()
    _lib.check(_lib.clg_output_shape(ctypes.byref(params), data.ndim, ds,
                                     indices.ndim, ixs, ctypes.byref(rank),
                                     out))
    return tuple(out[i] for i in range(rank.value))


class Call:
    """Context, queue, wait list and output of one call. `inputs` are the
    raw operands as given (to pick the queue and the output's kind)."""

    def __init__(self, inputs, out, context, queue, wait_for):
        cl_inputs = [x for x in list(inputs) + [out] if is_cl(x)]
        self.any_cl = bool(cl_inputs)
        if queue is None and cl_inputs:
            queue = cl_inputs[0].queue
            if queue is None:
                raise ValueError("clgather: a pyopencl array without a "
                                 "queue needs queue=")
        self.queue = queue
        if context is None:
            context = (_context.context_for_queue(queue) if queue is not None
                       else _context.default_context())
        elif not isinstance(context, _context.Context):
            raise TypeError("clgather: context= takes a clgather.Context")
        self.context = context
        events = [e for x in cl_inputs for e in x.events]
        events += list(wait_for or ())
        self.wait_list = (ctypes.c_void_p * max(1, len(events)))(
            *[e.int_ptr for e in events])
        self.num_events = len(events)
        self.wait_for = list(wait_for or ())
        self.ops = []       # what the library reads, for the overlap check
        self.out = out
        self.final = None   # the user's `out` when the library writes a temp

    def add(self, op):
        self.ops.append(op)
        return op

    def output(self, shape, dtype, in_place_of=None, dense=False):
        """The output Operand: `out`, or a temporary copied into `out` after
        success, or a new array (pyopencl if any operand is). dense: the
        library takes no strided output (EmbeddingBag): a non-contiguous
        numpy `out` is written through a temporary, a pyopencl one is a
        ValueError."""
        out, shape, dtype = self.out, tuple(shape), np.dtype(dtype)
        if out is None:
            if self.any_cl:
                import pyopencl.array as cla
                return Operand(shape, dtype,
                               cl=cla.empty(self.queue, shape, dtype))
            return Operand(shape, dtype, host=np.empty(shape, dtype))
        if isinstance(out, np.ndarray):
            if not out.flags.writeable:
                raise ValueError("clgather: output array is read-only")
        elif not is_cl(out):
            raise TypeError("clgather: out must be a numpy or pyopencl "
                            "array, not %s" % type(out).__name__)
        if tuple(out.shape) != shape:
            raise ValueError("clgather: out has shape %s; the result has "
                             "shape %s" % (tuple(out.shape), shape))
        if np.dtype(out.dtype) != dtype:
            raise TypeError("clgather: out has dtype %s; the result has "
                            "dtype %s" % (_dtype_name(out.dtype),
                                          _dtype_name(dtype)))
        axis = broadcast_axis(out.shape, out.strides)
        if axis is not None:
            raise ValueError(
                "clgather: out is a broadcast view (stride 0 on axis %d, of "
                "size %d): its elements share memory, so it cannot hold a "
                "result; pass an array with a place for each element"
                % (axis, out.shape[axis]))
        if is_cl(out):
            if dense:
                return dense_operand(out, "out")
            return operand(out, "out")
        # A numpy out is written in place (only its elements: the bytes
        # between them are untouched) when the library can address it:
        # C-contiguous, or strides in whole elements that give each element
        # a place of its own. Else, or where it shares memory with an input
        # (other than being `data` itself, for a scatter in place), the
        # result goes to a temporary copied into `out` after success.
        strides = None
        direct = out.flags.aligned and out.dtype.isnative
        if direct and dense:
            direct = out.flags.c_contiguous
        elif direct and not out.flags.c_contiguous and out.size:
            strides = elem_strides(out.shape, out.strides, out.itemsize)
            direct = strides is not None and own_places(shape, strides)
        for op in self.ops:
            if op.host is None or not np.may_share_memory(out, op.host):
                continue
            same = (in_place_of is op and op.host.ctypes.data
                    == out.ctypes.data and op.host.shape == out.shape
                    and op.host.strides == out.strides)  # data itself
            direct = direct and same
        if direct:
            return Operand(shape, dtype, host=out, strides=strides)
        self.final = out
        return Operand(shape, dtype, host=np.empty(shape, dtype))

    def run(self, fn, params, operands, output, scatter=None,
            outcome=None, async_fn=None):
        """Call clg_run / clg_scatter / clg_embedding_bag (or their _async
        forms, async_fn for fn's own, when `outcome` is an Outcome) and
        attach the event to a pyopencl output. An operand None is passed
        as NULL."""
        tensors = [None if op is None else op.tensor(_lib.DTYPES[op.dtype])
                   for op in operands]
        out_t = output.tensor(_lib.DTYPES[output.dtype])
        ev = ctypes.c_void_p()
        want_ev = output.cl is not None
        args = [self.context.handle, ctypes.byref(params)]
        if scatter is not None:
            args.append(ctypes.byref(scatter))
        args += [None if t is None else ctypes.byref(t) for t in tensors]
        args += [ctypes.byref(out_t),
                 self.queue.int_ptr if self.queue is not None else None,
                 self.num_events,
                 self.wait_list if self.num_events else None,
                 ctypes.byref(ev) if want_ev else None]
        if outcome is not None:
            if not isinstance(outcome, _context.Outcome):
                raise TypeError("clgather: outcome= takes a clgather.Outcome")
            handle = ctypes.c_void_p()
            args.append(ctypes.byref(handle))
            fn = async_fn or (_lib.clg_scatter_async if scatter is not None
                              else _lib.clg_run_async)
            _lib.check(fn(*args))
            outcome._set(handle.value, self.context)
        else:
            _lib.check(fn(*args))
        if want_ev and ev.value:
            import pyopencl as cl
            output.cl.add_event(cl.Event.from_int_ptr(ev.value, retain=False))
        if self.final is not None:
            self.final[...] = output.host
            return self.final
        return output.cl if output.cl is not None else output.host

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
    return np.dtype(dt).name


class Operand:
    """A tensor as the library sees it: shape, dtype, and either a host
    array (C-contiguous, aligned, native byte order) or a cl_mem + byte
    offset. Keeps what it points to alive."""

    def __init__(self, shape, dtype, host=None, cl=None):
        self.shape, self.dtype = tuple(int(d) for d in shape), np.dtype(dtype)
        self.host, self.cl = host, cl

    def reshape(self, shape):
        return Operand(shape, self.dtype, self.host, self.cl)

    @property
    def ndim(self):
        return len(self.shape)

    def tensor(self, dtype_code):
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
        return t


def operand(x, role, index=False):
    """x as an Operand. role names it in messages ("data", "indices")."""
    if is_cl(x):
        if not x.flags.c_contiguous:
            raise ValueError("clgather: %s: a pyopencl array must be "
                             "C-contiguous (offsets are fine)" % role)
        _check_dtype(x.dtype, role, index)
        return Operand(x.shape, x.dtype, cl=x)
    if isinstance(x, np.ndarray):
        arr = x
    else:
        arr = np.asarray(x)
        if index and arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)  # [] as indices, as numpy takes it
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    _check_dtype(arr.dtype, role, index)
    arr = np.require(arr, requirements=["C", "A"])
    return Operand(arr.shape, arr.dtype, host=arr)


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
        self.ops = []       # what the library reads, for the overlap check
        self.out = out
        self.final = None   # the user's `out` when the library writes a temp

    def add(self, op):
        self.ops.append(op)
        return op

    def output(self, shape, dtype, in_place_of=None):
        """The output Operand: `out`, or a temporary copied into `out` after
        success, or a new array (pyopencl if any operand is)."""
        out, shape, dtype = self.out, tuple(shape), np.dtype(dtype)
        if out is None:
            if self.any_cl:
                import pyopencl.array as cla
                return Operand(shape, dtype,
                               cl=cla.empty(self.queue, shape, dtype))
            return Operand(shape, dtype, host=np.empty(shape, dtype))
        if is_cl(out):
            o = operand(out, "out")
        elif isinstance(out, np.ndarray):
            if not out.flags.writeable:
                raise ValueError("clgather: output array is read-only")
            o = None
        else:
            raise TypeError("clgather: out must be a numpy or pyopencl "
                            "array, not %s" % type(out).__name__)
        if tuple(out.shape) != shape:
            raise ValueError("clgather: out has shape %s; the result has "
                             "shape %s" % (tuple(out.shape), shape))
        if np.dtype(out.dtype) != dtype:
            raise TypeError("clgather: out has dtype %s; the result has "
                            "dtype %s" % (_dtype_name(out.dtype),
                                          _dtype_name(dtype)))
        if o is not None:
            return o
        direct = (out.flags.c_contiguous and out.flags.aligned
                  and out.dtype.isnative)
        for op in self.ops:
            if op.host is None or not np.may_share_memory(out, op.host):
                continue
            same = (in_place_of is op and op.host.ctypes.data
                    == out.ctypes.data)  # out is data itself: in place
            direct = direct and same
        if direct:
            return Operand(shape, dtype, host=out)
        self.final = out
        return Operand(shape, dtype, host=np.empty(shape, dtype))

    def run(self, fn, params, operands, output, scatter=None,
            outcome=None):
        """Call clg_run / clg_scatter (or their _async forms when
        `outcome` is an Outcome) and attach the event to a pyopencl
        output."""
        tensors = [op.tensor(_lib.DTYPES[op.dtype]) for op in operands]
        out_t = output.tensor(_lib.DTYPES[output.dtype])
        ev = ctypes.c_void_p()
        want_ev = output.cl is not None
        args = [self.context.handle, ctypes.byref(params)]
        if scatter is not None:
            args.append(ctypes.byref(scatter))
        args += [ctypes.byref(t) for t in tensors]
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
            fn = (_lib.clg_scatter_async if scatter is not None
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

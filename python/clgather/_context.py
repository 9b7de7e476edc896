"""Context (a device and its cache of built programs) and Outcome (the
verdict of an asynchronously checked call)."""

import ctypes
import sys
import threading

from . import _lib


class Context:
    """A clgather context: one OpenCL device, its ``cl_context``, an in-order
    command queue, and the programs built for it (built once, on first use,
    and kept; see the program cache in ``clgather.h``).

    Parameters
    ----------
    device : str, optional
        Which device, as ``clg_context_create_default`` reads it: ``"P:D"``
        (platform P, device D, as ``clgather devices`` lists them) or a part
        of the device's name, case-insensitive. None: the environment
        variable ``CLGATHER_DEVICE``, else the first GPU, else the first
        device.

    Raises
    ------
    RuntimeError
        No OpenCL platform or device, or nothing matches `device`
        (``CLG_ERROR_NO_DEVICE``), or an OpenCL call failed.
    MemoryError
        A host allocation failed.

    Notes
    -----
    Every function takes ``context=``; without it, numpy operands use the
    module's default context (``default_context()``, created on first use)
    and pyopencl operands a context on their own queue's ``cl_context`` and
    device (``Context.from_pyopencl``, one per pair, kept for the process).
    A context may be shared by threads. ``close()`` (or ``with``) releases
    it; so does garbage collection.
    """

    def __init__(self, device=None):
        handle = ctypes.c_void_p()
        spec = None if device is None else str(device).encode()
        _lib.check(_lib.clg_context_create_default(spec, ctypes.byref(handle)))
        self._handle = handle.value
        self._owner = None

    @classmethod
    def from_pyopencl(cls, obj, device=None):
        """A context on a pyopencl ``Context`` (with `device`, default its
        first device) or ``CommandQueue`` (its context and device), through
        ``int_ptr`` and ``clg_context_create``. The ``cl_context`` and
        device are retained by the library (borrowed, not owned)."""
        import pyopencl as cl
        if isinstance(obj, cl.CommandQueue):
            cl_ctx, dev = obj.context, obj.device
        elif isinstance(obj, cl.Context):
            cl_ctx, dev = obj, device if device is not None else obj.devices[0]
        else:
            raise TypeError("from_pyopencl takes a pyopencl Context or "
                            "CommandQueue, not %s" % type(obj).__name__)
        self = cls.__new__(cls)
        handle = ctypes.c_void_p()
        _lib.check(_lib.clg_context_create(cl_ctx.int_ptr, dev.int_ptr,
                                           ctypes.byref(handle)))
        self._handle = handle.value
        self._owner = cl_ctx
        return self

    @property
    def handle(self):
        """The ``clg_context *`` as an int (for other ctypes code)."""
        if not self._handle:
            raise ValueError("clgather: the context is closed")
        return self._handle

    @property
    def cl_context_int_ptr(self):
        """The ``cl_context`` (borrowed) as an int."""
        return _lib.clg_context_cl_context(self.handle)

    @property
    def device_int_ptr(self):
        """The ``cl_device_id`` as an int."""
        return _lib.clg_context_device(self.handle)

    @property
    def queue_int_ptr(self):
        """The context's own in-order ``cl_command_queue`` as an int."""
        q = _lib.clg_context_queue(self.handle)
        if not q:
            raise RuntimeError("clgather: the context's command queue "
                               "cannot be created")
        return q

    def pyopencl_context(self):
        """The ``cl_context`` as a pyopencl ``Context`` (its own
        reference)."""
        import pyopencl as cl
        return cl.Context.from_int_ptr(self.cl_context_int_ptr, retain=True)

    def pyopencl_queue(self):
        """The context's own command queue as a pyopencl ``CommandQueue``
        (its own reference)."""
        import pyopencl as cl
        return cl.CommandQueue.from_int_ptr(self.queue_int_ptr, retain=True)

    def pyopencl_device(self):
        import pyopencl as cl
        return cl.Device.from_int_ptr(self.device_int_ptr, retain=True)

    def close(self):
        """Release the context (its programs, queue and references). Calls
        already enqueued run to completion. Idempotent."""
        h, self._handle = getattr(self, "_handle", None), None
        # At interpreter exit the OpenCL runtime may already be going down:
        # leave the process's teardown to it.
        if h and not sys.is_finalizing():
            _lib.clg_context_destroy(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self):
        return "<clgather.Context %s>" % (
            "0x%x" % self._handle if self._handle else "closed")


_lock = threading.Lock()
_default = None
_by_cl = {}  # (cl_context, device) int_ptr -> Context, for pyopencl operands


def default_context():
    """The module's default context: ``Context()`` created on first use and
    reused by every call given numpy operands and no ``context=``."""
    global _default
    with _lock:
        if _default is None:
            _default = Context()
        return _default


def set_default_context(context):
    """Make `context` (a ``Context``, or None to create one on next use)
    the default context. Returns the previous one (or None)."""
    global _default
    if context is not None and not isinstance(context, Context):
        raise TypeError("set_default_context takes a clgather.Context")
    with _lock:
        old, _default = _default, context
        return old


def context_for_queue(queue):
    """The context kept for a pyopencl queue's (cl_context, device)."""
    key = (queue.context.int_ptr, queue.device.int_ptr)
    with _lock:
        d = _default
        if d is not None and d._handle and key == (d.cl_context_int_ptr,
                                                     d.device_int_ptr):
            return d  # the default context's own device: reuse its programs
        ctx = _by_cl.get(key)
        if ctx is None:
            ctx = _by_cl[key] = Context.from_pyopencl(queue)
        return ctx


class Outcome:
    """The verdict of a call made with ``outcome=``: the asynchronous checked
    mode (``clg_run_async`` / ``clg_scatter_async``), where cl_mem indices
    are checked on the device and a call whose operands are all pyopencl
    arrays waits for nothing (a numpy operand makes it blocking).

    Pass a fresh ``Outcome()`` as ``outcome=``; the call fills it. Then
    ``wait()`` blocks until the verdict is known and raises what the
    synchronous call would have raised (``IndexError`` for an out-of-bounds
    index, ``ValueError`` for a repeated target), with the library's
    message. When it raises, the output is byte for byte as it was before
    the call (the kernels that write it ran and wrote nothing). Commands
    chained after the output's event run either way: a pipeline that must
    not consume an unchecked output calls ``wait()`` first.
    """

    def __init__(self):
        self._handle = None
        self._context = None

    def _set(self, handle, context):
        if self._handle:
            raise ValueError("clgather: this Outcome was already used")
        self._handle, self._context = handle, context

    def wait(self):
        """Block until the verdict is known; return None on success, else
        raise (IndexError, ValueError, RuntimeError for an OpenCL failure,
        e.g. of an event of the wait list). May be called again."""
        if not self._handle:
            raise ValueError("clgather: this Outcome was not given to a call")
        _lib.check(_lib.clg_outcome_wait(self._handle))

    def release(self):
        h, self._handle = getattr(self, "_handle", None), None
        if h and not sys.is_finalizing():
            _lib.clg_outcome_release(h)
        self._context = None

    def __del__(self):
        self.release()

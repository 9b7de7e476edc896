"""Docstring parts every operator shares (numpy's docstring format)."""

KEYWORDS = """\
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
    The asynchronous checked mode (``clg_run_async`` /
    ``clg_scatter_async``): with pyopencl indices and output, the index
    check runs on the device; errors that need the index values are raised
    by ``outcome.wait()`` instead of the call (except with a
    non-contiguous pyopencl `out`, whose indices the call checks before it
    returns, raising as the synchronous call does). With every operand a
    pyopencl array the call waits for nothing; a numpy operand still makes
    it blocking."""

OPERANDS = """\
Operands and results: numpy arrays (or anything ``numpy.asarray`` takes)
are host tensors; the call returns when the result is written (blocking).
pyopencl ``Array``\\ s are cl_mem tensors: their ``base_data`` and
``offset`` are used as they are. Views (transposed, sliced, reversed,
broadcast with stride 0) are passed in place, with their strides, no copy:
an input whenever its byte strides are whole elements (a host array also
aligned; a pyopencl one at an offset that is a multiple of
``min(itemsize, 8)``), else a host input is copied to C order and a
pyopencl one is a ValueError. A non-contiguous `out` is written in place,
at its elements only (the bytes between them are untouched); a numpy `out`
whose strides are not whole elements, or whose elements overlap, or that
shares memory with an input (other than `data` itself, in place) is
written through a temporary; a broadcast `out` (stride 0), or a pyopencl
`out` whose elements overlap, is a ValueError.
A strided operand costs the library one more pass over its bytes (see
clgather.h). With a pyopencl operand the result is a pyopencl
``Array`` on the same queue: the call enqueues its commands after the
operands' ``events`` (and `wait_for`) and adds the library's event to the
result (``add_event``). When every operand (and `out`) is a pyopencl array
the call does not wait for the kernels that write the result; in the
default (synchronous) check the host does wait for the verdict on the index
values, so that the error can be raised by the call: the indices are read
back, or checked by a small validation kernel whose verdict is read back,
after the whole wait list (the events of every operand, not only of the
indices, and `wait_for`). A numpy operand among pyopencl ones makes the
call blocking: it returns when the result has been written. With
``outcome=`` and every operand a pyopencl array nothing waits.

PyTorch tensors and DLPack: a torch tensor (CPU, strided) is read in place
through a numpy view of its memory (its strides and offset as they are, no
copy where the rules above allow); one that requires grad is read detached
(the forward only: nothing is recorded for autograd). With any torch
tensor among the operands the result is a torch tensor (sharing the memory
of the array clgather wrote, no copy); a torch `out` is written in place
and returned (one that requires grad is a ValueError, as torch refuses
``out=`` there). Any other object with ``__dlpack__`` is read through
``numpy.from_dlpack`` (CPU only) and the result is numpy. A tensor on
another device (``cuda``) is a ValueError: move it with ``.cpu()``.

Element types: bool, int8-64, uint8-64, float16, bfloat16, float32,
float64, complex64, complex128 (any other: TypeError). numpy has no
bfloat16: torch bfloat16 tensors travel as their bytes, seen by numpy as
the 2-byte void type ``numpy.dtype("V2")``, which clgather reads as
bfloat16 (a numpy caller may pass such arrays too). Indices: int32 or int64 (any
other: TypeError; Python lists become int64)."""

ERRORS_COMMON = """\
TypeError
    An unsupported element type, indices that are not int32 or int64, or
    an `out` of another dtype.
RuntimeError
    No OpenCL device, an OpenCL call failed (also: a failed event in the
    wait list), a kernel failed to build.
MemoryError
    A host allocation of the library failed.

Each exception raised for a library status has ``.status`` (the
``clg_status`` number) and ``.status_name``. On any error, `out` (or the
data, in place) is untouched."""

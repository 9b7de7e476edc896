"""GatherBlockQuantized through clg_gather_block_quantized
(clgather/clgather_quantized.h): rows of a block-quantized tensor gathered
and dequantized in one call (ONNX Runtime's com.microsoft
GatherBlockQuantized)."""

import operator

import numpy as np

from . import _lib
from ._call import Call, Operand, choose, dense_operand, is_cl, \
    normalize_axis


def _pack4(x, role, kind, call):
    """A 4-bit kind's operand given one value a byte (uint4: uint8 0..15;
    int4: int8 -8..7), packed two a byte over the whole tensor as the
    library takes it (value e in byte e // 2, the low nibble for even e):
    an Operand of dtype uint8 with the values' shape over ceil(n / 2)
    bytes. numpy has no 4-bit dtype, so the values' shape cannot be told
    from packed bytes; a pyopencl operand is read back (blocking, after
    its events and the call's wait list), packed and uploaded."""
    signed = kind == _lib.GBQ_KINDS["int4"]
    want = np.dtype(np.int8 if signed else np.uint8)
    cl_in = is_cl(x)
    if cl_in:
        if call.wait_for and x.size:
            import pyopencl as cl
            cl.wait_for_events(list(call.wait_for))
        # x.get() waits for x's own events
        host = x.get(queue=call.queue) if x.size else np.empty(x.shape,
                                                                x.dtype)
    else:
        host = np.asarray(x)
    if host.dtype != want:
        raise TypeError("clgather: %s of kind %r holds one value a byte: "
                        "dtype %s (values %s), not %s"
                        % (role, "int4" if signed else "uint4", want.name,
                           "-8..7" if signed else "0..15", host.dtype.name))
    lo, hi = (-8, 7) if signed else (0, 15)
    flat = np.ascontiguousarray(host).reshape(-1)
    bad = np.flatnonzero((flat < lo) | (flat > hi))
    if bad.size:
        raise ValueError("clgather: %s: value %d at flat position %d is "
                         "outside [%d, %d]" % (role, flat[bad[0]], bad[0],
                                               lo, hi))
    nib = flat.view(np.uint8) & 0xF
    if nib.size % 2:
        nib = np.append(nib, np.uint8(0))  # the last high nibble unused
    packed = nib[0::2] | (nib[1::2] << 4)
    packed = np.ascontiguousarray(packed, np.uint8)
    if cl_in and packed.size:
        import pyopencl.array as cla
        return Operand(host.shape, np.uint8,
                       cl=cla.to_device(call.queue, packed))
    return Operand(host.shape, np.uint8, host=packed)


def gather_block_quantized(data, indices, scales, zero_points=None, *,
                           gather_axis=0, quantize_axis=1, block_size=128,
                           bits=4, kind="uint8", out=None, context=None,
                           queue=None, wait_for=None):
    params = _lib.GbqParams()
    params.kind = choose(kind, _lib.GBQ_KINDS, "kind")
    bits = operator.index(bits)
    if bits not in (4, 8):  # not cut to int32 by ctypes before the check
        raise ValueError("clgather: bits must be 4 or 8, not %d" % bits)
    params.bits = bits
    params.block_size = _lib.int64(block_size, "block_size")
    call = Call((data, indices, scales, zero_points), out, context, queue,
                wait_for)
    four = params.kind != _lib.GBQ_KINDS["uint8"]
    if four:
        d = call.add(_pack4(data, "data", params.kind, call))
        values = d.shape
    else:
        d = call.add(dense_operand(data, "data"))
        values = d.shape
        if params.bits == 4 and d.ndim:  # ONNX Runtime's packed rows
            values = values[:-1] + (2 * values[-1],)
    r = len(values)
    if r == 0:
        raise ValueError("clgather: data must have rank 1 or more")
    ga = normalize_axis(_lib.int64(gather_axis, "gather_axis"), r)
    params.gather_axis = ga
    params.quantize_axis = normalize_axis(
        _lib.int64(quantize_axis, "quantize_axis"), r)
    idx = call.add(dense_operand(indices, "indices", index=True))
    sc = call.add(dense_operand(scales, "scales"))
    zp = None
    if zero_points is not None:
        zp = call.add(_pack4(zero_points, "zero_points", params.kind, call)
                      if four else dense_operand(zero_points, "zero_points"))
    # scales' dtype; another is the library's TypeError (float32 here)
    odt = np.float16 if sc.dtype == np.float16 else np.float32
    shape = values[:ga] + idx.shape + values[ga + 1:]
    output = call.output(shape, odt, dense=True)
    return call.run(_lib.clg_gather_block_quantized, params,
                    [d, idx, sc, zp], output)


gather_block_quantized.__doc__ = """\
Gather rows of a block-quantized tensor and dequantize them: ONNX Runtime's
``com.microsoft.GatherBlockQuantized`` (version 1) on an OpenCL device,
through ``clg_gather_block_quantized``. Every index is checked before
anything is written.

``out = dequantize(take(values, indices, axis=gather_axis))``, each
element ``(float32(q - p) * s)`` with the scale ``s`` and zero point ``p``
of its block of `block_size` values along `quantize_axis` in `data`.

Parameters
----------
data : array_like or pyopencl.array.Array
    The quantized values, by `kind`:

    - ``"uint8"``, ``bits=8``: uint8, a value a byte; the values' shape V
      is data's shape.
    - ``"uint8"``, ``bits=4`` (ONNX Runtime's layout for uint8 data):
      uint8 of shape ``V[:-1] + (c,)``, each byte two values of its row,
      ``byte j = v[2j] | v[2j+1] << 4``; V is ``V[:-1] + (2c,)``. uint8
      takes gather_axis 0 and quantize_axis the last axis only.
    - ``"uint4"`` / ``"int4"`` (ONNX's 4-bit types): one value a byte in V
      itself, uint8 in 0..15 (uint4) or int8 in -8..7 (int4), packed here
      two a byte over the whole tensor in C order (value e in byte e // 2,
      the low nibble for even e) before the call (numpy has no 4-bit
      dtype, so packed bytes could not say V). A pyopencl operand is read
      back for that (blocking), packed and uploaded again. Any pair of
      axes.
indices : array_like or pyopencl.array.Array of int32 or int64
    Any shape; each in ``[-s, s-1]`` (``s = V[gather_axis]``), negative
    counting from the back.
scales : array_like or pyopencl.array.Array of float32 or float16
    V with ``ceil(V[quantize_axis] / block_size)`` on quantize_axis (the
    last block may be partial).
zero_points : array_like or pyopencl.array.Array, optional
    One per block, scales' element count, in data's layout: uint8
    ``bits=8``: uint8 of scales' shape; uint8 ``bits=4``: two a byte per
    row of the last axis (``ceil(nb / 2)`` bytes there, block b in byte
    b // 2, low nibble for even b); uint4 / int4: one value a byte of
    scales' shape, packed as `data`. Default (ONNX Runtime's): 128 for
    ``bits=8``, 8 for uint8 ``bits=4``, 0 for uint4 and int4.
gather_axis : int, optional
    The axis of V that `indices` index (default 0); negative counts from
    the back.
quantize_axis : int, optional
    The axis the blocks run along (default 1, ONNX Runtime's); negative
    counts from the back.
block_size : int, optional
    Values a block: a power of two, at least 16 (default 128).
bits : {4, 8}, optional
    Bits a value (default 4, ONNX Runtime's); 8 for kind "uint8" only.
kind : {'uint8', 'uint4', 'int4'}, optional
    How `data` stores its values (``clg_gbq_kind``); default "uint8".
out : ndarray or pyopencl.array.Array, optional
    ``V[:gather_axis] + indices.shape + V[gather_axis+1:]``, scales' dtype,
    C-contiguous for pyopencl. Returned.
context : clgather.Context, optional
    The device to run on (default: the module's default context, or one
    on a pyopencl operand's queue).
queue : pyopencl.CommandQueue, optional
    The command queue (default: the first pyopencl operand's queue).
wait_for : list of pyopencl.Event, optional
    Events the call waits for, besides the pyopencl operands' own.

Returns
-------
out : ndarray or pyopencl.array.Array
    Shape ``V[:gather_axis] + indices.shape + V[gather_axis+1:]``, dtype
    scales' (float32 or float16). pyopencl operands give a pyopencl array
    carrying the library's event.

Raises
------
IndexError
    An index outside ``[-s, s-1]``, named with its position and value (ONNX
    Runtime writes zeros there; this call fails).
numpy.exceptions.AxisError
    gather_axis or quantize_axis outside ``[-r, r-1]``; for kind "uint8",
    gather_axis not 0 or quantize_axis not the last.
ValueError
    An unknown kind, bits not 8 or 4 (or 8 with a 4-bit kind), block_size
    not a power of two at least 16, a 4-bit value out of its range, data of
    rank 0, scales' or zero_points' shape not the one above, `out` of the
    wrong shape.
TypeError
    data not uint8 (uint4 / int4: not uint8 / int8), scales not float32 or
    float16, indices not int32 or int64, `out` of another dtype; float32
    scales on a device that flushes subnormal floats.
RuntimeError
    No OpenCL device, an OpenCL call failed, a kernel failed to build.

On any error `out` is untouched.

Notes
-----
The arithmetic is the same bits on every device: ``q - p`` is exact, the
product one IEEE 754 float32 multiplication rounded to nearest even, never
contracted; with float16 scales (widened exactly) that product is rounded
once to float16 (numpy: ``((q - p).astype(np.float32) *
s.astype(np.float32)).astype(np.float16)``). A NaN or infinite scale is
data, not an error.
"""

__all__ = ["gather_block_quantized"]

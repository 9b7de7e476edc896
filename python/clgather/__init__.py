"""clgather: the ONNX gather and scatter families on any OpenCL device,
with every index checked before anything is written.

numpy's names where numpy has the operation, ONNX's for the rest (and
PyTorch's and TensorFlow's for the bag reductions):

- ``take(a, indices, axis=None, mode="raise", out=None, batch_dims=0)``:
  ONNX Gather (``numpy.take``; batch_dims as ``tf.gather``)
- ``take_along_axis(arr, indices, axis)``: ONNX GatherElements
- ``gather_nd(data, indices, batch_dims=0)``: ONNX GatherND
- ``scatter_elements(data, indices, updates, axis=0, reduction="none",
  duplicates="error", out=None)``: ONNX ScatterElements
- ``scatter_nd(data, indices, updates, reduction="none",
  duplicates="error", out=None)``: ONNX ScatterND
- ``embedding_bag(input, weight, offsets=None, mode="mean",
  per_sample_weights=None, include_last_offset=False, padding_idx=None,
  out=None, weight_format="dense")``: PyTorch's
  ``torch.nn.functional.embedding_bag``; with ``weight_format``
  "int8-rowwise", "int4-rowwise" or "int2-rowwise" over the uint8 rows of
  PyTorch's quantized prepack, and under torch's own names
  ``embedding_bag_byte_rowwise_offsets``, ``embedding_bag_4bit_rowwise_offsets``
  and ``embedding_bag_2bit_rowwise_offsets`` (``torch.ops.quantized``'s)
- ``sparse_segment_reduce(data, indices, segment_ids, mode="sum",
  num_segments=None, out=None)``: TensorFlow's
  ``tf.math.sparse_segment_sum`` / ``_mean`` / ``_sqrt_n``
- ``gather_block_quantized(data, indices, scales, zero_points=None,
  gather_axis=0, quantize_axis=1, block_size=128, bits=4, kind="uint8",
  out=None)``: ONNX Runtime's ``com.microsoft.GatherBlockQuantized``, rows
  of uint8, uint4 or int4 blocks gathered and dequantized

numpy arrays in give numpy arrays out; pyopencl arrays in give pyopencl
arrays out, on the caller's queue, chained by events. PyTorch tensors (on
the CPU) in give PyTorch tensors out, and an ``out=`` tensor is written in
place; any other object with ``__dlpack__`` is read through
``numpy.from_dlpack`` (results: numpy). ``clgather.torch`` has
``embedding_bag``, ``gather``, ``index_select`` and ``scatter_add`` under
PyTorch's own names and argument order. Errors are numpy's:
IndexError for an out-of-bounds index (with the position, the value and the
valid range), numpy's AxisError, ValueError, TypeError; RuntimeError for
OpenCL failures; MemoryError. A ``Context`` chooses the device.

The shared library is found through the environment variable
``CLGATHER_LIBRARY`` (a path), else beside the installed package, else the
system's (``libclgather.so.0``); ``clgather.library_path`` says which.
"""

from ._lib import AxisError, library_path, version as __version__
from ._context import (Context, Outcome, default_context,
                       set_default_context)
from . import _bag, _gather, _gbq, _scatter
from ._tensors import accepts_tensors as _accepts_tensors

# Every operator takes torch tensors and DLPack producers (_tensors.py).
take = _accepts_tensors(_gather.take)
take_along_axis = _accepts_tensors(_gather.take_along_axis)
gather_nd = _accepts_tensors(_gather.gather_nd)
scatter_elements = _accepts_tensors(_scatter.scatter_elements)
scatter_nd = _accepts_tensors(_scatter.scatter_nd)
gather_block_quantized = _accepts_tensors(_gbq.gather_block_quantized)
embedding_bag = _accepts_tensors(_bag.embedding_bag)
embedding_bag_byte_rowwise_offsets = _accepts_tensors(
    _bag.embedding_bag_byte_rowwise_offsets)
embedding_bag_4bit_rowwise_offsets = _accepts_tensors(
    _bag.embedding_bag_4bit_rowwise_offsets)
embedding_bag_2bit_rowwise_offsets = _accepts_tensors(
    _bag.embedding_bag_2bit_rowwise_offsets)
sparse_segment_reduce = _accepts_tensors(_bag.sparse_segment_reduce)

__all__ = [
    "take", "take_along_axis", "gather_nd", "scatter_elements",
    "scatter_nd", "embedding_bag", "sparse_segment_reduce",
    "embedding_bag_byte_rowwise_offsets",
    "embedding_bag_4bit_rowwise_offsets",
    "embedding_bag_2bit_rowwise_offsets", "gather_block_quantized",
    "Context", "Outcome",
    "default_context",
    "set_default_context", "AxisError", "library_path", "__version__",
]

"""clgather.onnx_backend under ONNX's own backend test suite
(onnx.backend.test.BackendTest, Debian's python3-onnx 1.12 and the test
data it ships), filtered to clgather's operators, and the backend's own
rules: other operators refused, bounds checked, ONNX's shapes.

Every node test of onnx 1.12 for Gather, GatherElements, GatherND,
ScatterElements, Scatter and ScatterND runs, and PyTorch's exported
nn.Embedding (a Gather of an initializer); none is excluded. ONNX has no
test data for com.microsoft.GatherBlockQuantized: it is tested here against
a numpy reference. Only the CPU variants run: clgather's arrays are host
arrays (supports_device("CUDA") is False, so ONNX would list those as
skipped); the kernels run on the session's OpenCL device (conftest.py)."""

import warnings

import numpy as np
import pytest

import onnx
from onnx import TensorProto, helper

# ONNX 1.12's runner compares outputs with `np.object`, which numpy 1.24
# removed: give it back here, for the runner only (the package never
# touches numpy's namespace).
with warnings.catch_warnings():  # numpy 1.24 warns on the look-up itself
    warnings.simplefilter("ignore", FutureWarning)
    if not hasattr(np, "object"):
        np.object = object

import onnx.backend.test  # noqa: E402  (needs the shim above)

from clgather import onnx_backend  # noqa: E402

# ONNX's tests that exercise clgather's operators, by name (ONNX appends the
# device). A change in ONNX's data (a test gone, renamed or added) fails
# test_the_suite_is_the_expected_one instead of running less unnoticed.
EXPECTED = sorted(name + "_cpu" for name in [
    "test_gather_0", "test_gather_1", "test_gather_2d_indices",
    "test_gather_negative_indices",
    "test_gather_elements_0", "test_gather_elements_1",
    "test_gather_elements_negative_indices",
    "test_gathernd_example_float32", "test_gathernd_example_int32",
    "test_gathernd_example_int32_batch_dim1",
    "test_scatter_elements_with_axis",
    "test_scatter_elements_with_duplicate_indices",
    "test_scatter_elements_with_negative_indices",
    "test_scatter_elements_without_axis",
    "test_scatter_with_axis", "test_scatter_without_axis",
    "test_scatternd", "test_scatternd_add", "test_scatternd_multiply",
    "test_Embedding", "test_Embedding_sparse",   # pytorch-converted
])

_backend_test = onnx.backend.test.BackendTest(onnx_backend.ClgatherBackend,
                                              __name__)
_backend_test.include(r"^test_(gather|scatter)\w*_cpu$")
_backend_test.include(r"^test_Embedding\w*_cpu$")

# ONNX gives every one of its ~1,900 tests, the ones not included marked
# skipped; keep only the included ones, so that pytest's count is the
# count that ran.
_RAN = []
for _name, _case in _backend_test.test_cases.items():
    for _test in [t for t in vars(_case) if t.startswith("test_")]:
        if getattr(getattr(_case, _test), "__unittest_skip_why__", None) \
                == "no matched include pattern":
            delattr(_case, _test)
        else:
            _RAN.append(_test)
    if any(t.startswith("test_") for t in vars(_case)):
        globals()[_name] = _case


def test_the_suite_is_the_expected_one():
    assert sorted(_RAN) == EXPECTED


# ------------------------------------------------ the backend's own rules

def _model(nodes, inputs, outputs, opset=13, initializers=(), domain=""):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              initializer=list(initializers))
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid(domain, opset)])


def _info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def test_supports_cpu_only():
    assert onnx_backend.supports_device("CPU")
    assert not onnx_backend.supports_device("CUDA")
    assert not onnx_backend.supports_device("TPU")


def test_other_operators_are_refused_by_name():
    relu = helper.make_node("Relu", ["x"], ["y"])
    with pytest.raises(NotImplementedError,
                       match="Relu node is not an operator clgather runs; "
                             "it runs Gather, GatherElements"):
        onnx_backend.run_node(relu, [np.zeros(3, np.float32)])
    model = _model([helper.make_node("Gather", ["d", "i"], ["g"]), relu],
                   [_info("d", TensorProto.FLOAT, [3]),
                    _info("i", TensorProto.INT64, [2])],
                   [_info("y", TensorProto.FLOAT, [2])])
    model.graph.node[1].input[0] = "g"
    assert not onnx_backend.is_compatible(model)
    with pytest.raises(NotImplementedError, match="Relu"):
        onnx_backend.prepare(model)


def test_other_devices_are_refused():
    node = helper.make_node("Gather", ["d", "i"], ["y"])
    with pytest.raises(ValueError, match="device 'CUDA'"):
        onnx_backend.run_node(node, [np.arange(3.0), np.array([0])],
                              device="CUDA")


def test_a_bad_index_is_an_index_error_naming_it():
    node = helper.make_node("Gather", ["d", "i"], ["y"], axis=0)
    with pytest.raises(IndexError, match="7"):
        onnx_backend.run_node(node, [np.arange(6, dtype=np.float32),
                                     np.array([1, 7], np.int64)])


def test_a_chain_with_an_initializer():
    """An embedding table (initializer), rows gathered, then a
    GatherElements on the result: ONNX's shapes through a two-node
    graph."""
    table = np.arange(20, dtype=np.float32).reshape(5, 4)
    nodes = [helper.make_node("Gather", ["w", "ids"], ["rows"], axis=0),
             helper.make_node("GatherElements", ["rows", "cols"], ["y"],
                              axis=1)]
    model = _model(nodes,
                   [_info("ids", TensorProto.INT64, [3]),
                    _info("cols", TensorProto.INT64, [3, 2])],
                   [_info("y", TensorProto.FLOAT, [3, 2])],
                   initializers=[onnx.numpy_helper.from_array(table, "w")])
    ids = np.array([4, -5, 2], np.int64)
    cols = np.array([[3, 0], [1, 1], [-1, 2]], np.int64)
    got = onnx_backend.prepare(model).run({"ids": ids, "cols": cols})
    want = np.take_along_axis(table[ids], cols, axis=1)
    assert got["y"].tobytes() == want.tobytes()
    assert got.y.shape == (3, 2)


def test_gather_elements_indices_shorter_than_data():
    """ONNX's rule: off the axis, indices may be shorter than data and read
    data at their own positions (numpy would refuse or broadcast)."""
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    idx = np.array([[2, 0], [1, 2]], np.int64)          # 2 x 2 of 3 x 4
    node = helper.make_node("GatherElements", ["d", "i"], ["y"], axis=0)
    (got,) = onnx_backend.run_node(node, [data, idx])
    want = np.array([[data[2, 0], data[0, 1]], [data[1, 0], data[2, 1]]])
    assert got.tolist() == want.tolist()
    with pytest.raises(ValueError, match="exceed data"):
        onnx_backend.run_node(node, [data, np.zeros((2, 5), np.int64)])


def test_reductions_follow_the_opset():
    node = helper.make_node("ScatterND", ["d", "i", "u"], ["y"],
                            reduction="max")
    args = [np.zeros(4, np.float32), np.array([[1]], np.int64),
            np.array([5], np.float32)]
    with pytest.raises(ValueError, match="needs opset 18"):
        onnx_backend.run_node(node, args, opset_version=16)


def test_repeated_targets_under_none_are_an_error():
    node = helper.make_node("ScatterND", ["d", "i", "u"], ["y"])
    with pytest.raises(ValueError):
        onnx_backend.run_node(node, [np.zeros(4, np.float32),
                                     np.array([[1], [1]], np.int64),
                                     np.array([5, 6], np.float32)])


def test_updates_of_another_type_are_refused():
    node = helper.make_node("ScatterElements", ["d", "i", "u"], ["y"])
    with pytest.raises(TypeError, match="one type T"):
        onnx_backend.run_node(node, [np.zeros(4, np.float32),
                                     np.array([1], np.int64),
                                     np.array([5], np.float64)])


def test_gather_block_quantized_8bit():
    """com.microsoft.GatherBlockQuantized, bits 8, uint8 data with zero
    points: (q - zp) * scale per block of 16 along axis 1."""
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, (5, 32), dtype=np.uint8)
    scales = rng.standard_normal((5, 2)).astype(np.float32)
    zp = rng.integers(0, 256, (5, 2), dtype=np.uint8)
    idx = np.array([[4, 0], [-1, 2]], np.int32)
    node = helper.make_node("GatherBlockQuantized", ["d", "i", "s", "z"],
                            ["y"], domain="com.microsoft", bits=8,
                            block_size=16, gather_axis=0, quantize_axis=1)
    (got,) = onnx_backend.run_node(node, [data, idx, scales, zp])
    deq = ((data.astype(np.float32) - np.repeat(zp, 16, 1).astype(np.float32))
           * np.repeat(scales, 16, 1))
    want = deq[idx]
    assert got.dtype == np.float32 and got.shape == (2, 2, 32)
    assert got.tobytes() == want.tobytes()

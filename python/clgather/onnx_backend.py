"""clgather as an ONNX Python backend (``onnx.backend.base.Backend``).

Runs ONNX graphs made only of the operators clgather has, through the
package's own functions, on clgather's OpenCL device::

    import onnx
    from clgather import onnx_backend

    rep = onnx_backend.prepare(onnx.load("model.onnx"))   # checked here
    out = rep.run([data, indices])                         # numpy in, out
    out = onnx_backend.run_node(node, [data, indices])     # one node

The operators (ONNX's domain unless named), each through the function of
this package given beside it:

- ``Gather`` (opsets 1, 11, 13): ``take``
- ``GatherElements`` (11, 13): ``take_along_axis``, on data cut to the
  indices' extent off the axis (ONNX's rule; numpy would broadcast)
- ``GatherND`` (11, 12, 13; ``batch_dims`` from 12): ``gather_nd``
- ``ScatterElements`` (11, 13, 16, 18) and ``Scatter`` (9, 10):
  ``scatter_elements``
- ``ScatterND`` (11, 13, 16, 18): ``scatter_nd``
- ``com.microsoft.GatherBlockQuantized`` (1; uint8 data, as ONNX 1.12
  has no 4-bit type): ``gather_block_quantized``

A graph may chain them, its initializers are its constants (an embedding
table, as PyTorch's ``nn.Embedding`` exports: a ``Gather`` of an
initializer), and nothing else: ``prepare`` and ``run_node`` refuse any
other operator (``NotImplementedError`` naming it and listing these) before
anything runs, and ``is_compatible`` says False for such a model. Under
reduction ``none`` a scatter's repeated target is a ValueError (ONNX: the
indices must not repeat); reductions ``add``/``mul`` need opset 16,
``min``/``max`` opset 18.

Devices: ONNX's device string says where the inputs and outputs live.
clgather takes and returns host (numpy) arrays, so ``supports_device``
says True for ``"CPU"`` only; the kernels run on the OpenCL device of the
``context`` passed to ``prepare``/``run_node`` (a ``clgather.Context``),
else of ``clgather.default_context()`` (``CLGATHER_DEVICE``, else the first
GPU, else the first device). Errors are the package's: an out-of-bounds
index is an IndexError naming its position and value, raised before any
output is written.
"""

import numpy as np

from onnx import defs, helper, numpy_helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, \
    namedtupledict

from ._gather import gather_nd, take, take_along_axis
from ._gbq import gather_block_quantized
from ._scatter import scatter_elements, scatter_nd

_MS = "com.microsoft"


def _attrs(node):
    """The node's attributes as Python values (strings decoded)."""
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def _same_dtype(name, x, data, node):
    if x.dtype != data.dtype:
        raise TypeError("clgather.onnx_backend: %s: %s is %s, data is %s "
                        "(ONNX: one type T)" % (_describe(node), name,
                                                x.dtype, data.dtype))


def _reduction(attrs, opset, node):
    r = attrs.get("reduction", "none")
    needs = {"none": 0, "add": 16, "mul": 16, "min": 18, "max": 18}
    if r not in needs:
        raise ValueError("clgather.onnx_backend: %s: unknown reduction %r"
                         % (_describe(node), r))
    if opset < needs[r]:
        raise ValueError("clgather.onnx_backend: %s: reduction %r needs "
                         "opset %d, the model imports %d"
                         % (_describe(node), r, needs[r], opset))
    return r


def _gather(node, attrs, opset, ins, ctx):
    data, indices = ins
    return [np.asarray(take(data, indices, axis=attrs.get("axis", 0),
                            context=ctx))]


def _gather_elements(node, attrs, opset, ins, ctx):
    data, indices = ins
    if indices.ndim != data.ndim:
        raise ValueError("clgather.onnx_backend: %s: indices of rank %d, "
                         "data of rank %d (ONNX: the same rank)"
                         % (_describe(node), indices.ndim, data.ndim))
    axis = attrs.get("axis", 0)
    a = axis + data.ndim if axis < 0 else axis
    # ONNX reads data[..., indices[i], ...] at indices' own positions off
    # the axis, where indices may be shorter than data: cut data to them
    # (a view) so that numpy's broadcasting rule never applies.
    cut = []
    for d, (n, m) in enumerate(zip(data.shape, indices.shape)):
        if d != a and m > n:
            raise ValueError(
                "clgather.onnx_backend: %s: indices of shape %s exceed data "
                "of shape %s on axis %d" % (_describe(node), indices.shape,
                                            data.shape, d))
        cut.append(slice(None) if d == a else slice(0, m))
    if 0 <= a < data.ndim:
        data = data[tuple(cut)]
    return [take_along_axis(data, indices, axis, context=ctx)]


def _gather_nd(node, attrs, opset, ins, ctx):
    data, indices = ins
    return [gather_nd(data, indices, batch_dims=attrs.get("batch_dims", 0),
                      context=ctx)]


def _scatter_elements(node, attrs, opset, ins, ctx):
    data, indices, updates = ins
    _same_dtype("updates", updates, data, node)
    return [scatter_elements(data, indices, updates,
                             axis=attrs.get("axis", 0),
                             reduction=_reduction(attrs, opset, node),
                             context=ctx)]


def _scatter_nd(node, attrs, opset, ins, ctx):
    data, indices, updates = ins
    _same_dtype("updates", updates, data, node)
    return [scatter_nd(data, indices, updates,
                       reduction=_reduction(attrs, opset, node),
                       context=ctx)]


def _gather_block_quantized(node, attrs, opset, ins, ctx):
    data, indices, scales = ins[:3]
    zero_points = ins[3] if len(ins) > 3 else None
    if data.dtype != np.uint8:
        raise TypeError("clgather.onnx_backend: %s: data of %s; clgather "
                        "takes uint8 here (ONNX 1.12 has no 4-bit type)"
                        % (_describe(node), data.dtype))
    return [gather_block_quantized(
        data, indices, scales, zero_points,
        gather_axis=attrs.get("gather_axis", 0),
        quantize_axis=attrs.get("quantize_axis", 1),
        block_size=attrs.get("block_size", 128),
        bits=attrs.get("bits", 4), kind="uint8", context=ctx)]


# (domain, op_type): (the opsets it exists in [first, last], inputs
# (required, most), the attributes it may have, how it runs)
_OPS = {
    ("", "Gather"): ((1, None), (2, 2), {"axis"}, _gather),
    ("", "GatherElements"): ((11, None), (2, 2), {"axis"}, _gather_elements),
    ("", "GatherND"): ((11, None), (2, 2), {"batch_dims"}, _gather_nd),
    ("", "ScatterElements"): ((11, None), (3, 3), {"axis", "reduction"},
                              _scatter_elements),
    ("", "Scatter"): ((9, 10), (3, 3), {"axis"}, _scatter_elements),
    ("", "ScatterND"): ((11, None), (3, 3), {"reduction"}, _scatter_nd),
    (_MS, "GatherBlockQuantized"): (
        (1, None), (3, 4),
        {"gather_axis", "quantize_axis", "block_size", "bits"},
        _gather_block_quantized),
}


def _describe(node):
    name = node.op_type if node.domain in ("", "ai.onnx") else \
        "%s.%s" % (node.domain, node.op_type)
    return "%s node %r" % (name, node.name) if node.name else name + " node"


def _supported_names():
    return ", ".join(op if d == "" else "%s.%s" % (d, op)
                     for d, op in _OPS)


def _lookup(node, opsets):
    """The table row for `node` under the model's opset imports (domain ->
    version), or NotImplementedError saying why not."""
    domain = "" if node.domain == "ai.onnx" else node.domain
    row = _OPS.get((domain, node.op_type))
    if row is None:
        raise NotImplementedError(
            "clgather.onnx_backend: %s is not an operator clgather runs; it "
            "runs %s" % (_describe(node), _supported_names()))
    (first, last), _, known, _ = row
    opset = opsets.get(domain)
    if opset is None:
        raise NotImplementedError(
            "clgather.onnx_backend: %s: the model imports no opset of "
            "domain %r" % (_describe(node), domain or "ai.onnx"))
    if opset < first or (last is not None and opset > last):
        raise NotImplementedError(
            "clgather.onnx_backend: %s does not exist in opset %d of domain "
            "%r" % (_describe(node), opset, domain or "ai.onnx"))
    extra = sorted(a.name for a in node.attribute if a.name not in known)
    if extra:
        raise NotImplementedError(
            "clgather.onnx_backend: %s: attribute %s is not one clgather "
            "knows" % (_describe(node), ", ".join(extra)))
    return row, opset


def _run(node, row, opset, inputs, ctx):
    _, (least, most), _, fn = row
    # ONNX writes an omitted optional input as "": drop trailing ones.
    ins = list(inputs)
    while ins and ins[-1] is None:
        ins.pop()
    if not least <= len(ins) <= most:
        raise ValueError("clgather.onnx_backend: %s takes %d to %d inputs, "
                         "not %d" % (_describe(node), least, most, len(ins)))
    ins = [None if x is None else np.asarray(x) for x in ins]
    outs = fn(node, _attrs(node), opset, ins, ctx)
    return [np.asarray(o) for o in outs]


def _check_device(device):
    if not ClgatherBackend.supports_device(device):
        raise ValueError(
            "clgather.onnx_backend: device %r: clgather takes and returns "
            "host arrays ('CPU'); its kernels run on the OpenCL device of "
            "the clgather.Context passed as context=" % (device,))


class ClgatherRep(BackendRep):
    """A checked graph of clgather's operators, run by ``run(inputs)``:
    inputs a list (in the order of the graph's inputs; the initializers
    fill the rest) or a dict by name; returns the graph's outputs as a
    namedtuple-like dict of numpy arrays."""

    def __init__(self, model, context=None):
        graph = model.graph
        self._context = context
        self._opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version
                        for o in model.opset_import}
        self._constants = {t.name: numpy_helper.to_array(t)
                           for t in graph.initializer}
        self._inputs = [i.name for i in graph.input]
        self._outputs = [o.name for o in graph.output]
        self._nodes = [(n,) + _lookup(n, self._opsets) for n in graph.node]
        self._Outputs = namedtupledict("Outputs", self._outputs)

    def run(self, inputs, **kwargs):
        values = dict(self._constants)
        if isinstance(inputs, dict):
            values.update(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            if len(inputs) > len(self._inputs):
                raise ValueError("clgather.onnx_backend: %d inputs given, "
                                 "the graph has %d" % (len(inputs),
                                                       len(self._inputs)))
            values.update(zip(self._inputs, inputs))
        for name in self._inputs:
            if name not in values:
                raise ValueError("clgather.onnx_backend: no value for the "
                                 "graph's input %r" % name)
        for node, row, opset in self._nodes:
            ins = [values[n] if n else None for n in node.input]
            outs = _run(node, row, opset, ins, self._context)
            values.update(zip(node.output, outs))
        return self._Outputs(*[values[n] for n in self._outputs])


class ClgatherBackend(Backend):
    """ONNX's backend interface over clgather: ``prepare``, ``run_model``,
    ``run_node``, ``supports_device``, ``is_compatible``. Keyword
    ``context``: the ``clgather.Context`` to run on."""

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version
                  for o in model.opset_import}
        try:
            for n in model.graph.node:
                _lookup(n, opsets)
        except NotImplementedError:
            return False
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        _check_device(device)
        super().prepare(model, device, **kwargs)  # onnx.checker
        return ClgatherRep(model, kwargs.get("context"))

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None,
                 **kwargs):
        """Run one ONNX node (a ``NodeProto`` of an operator clgather has)
        on ``inputs`` (numpy arrays, in the node's input order) and return
        its outputs as a namedtuple of numpy arrays named after the node's
        outputs. ``device`` must be ``"CPU"`` (host arrays in and out);
        ``opset_version`` (keyword) picks the operator's version (default:
        onnx's current one), ``context`` (keyword) a ``clgather.Context``.
        Raises ``NotImplementedError`` for an operator, attribute or opset
        clgather does not have, and the package's errors (``IndexError``
        for an index out of range, nothing written) for bad inputs."""
        _check_device(device)
        domain = "" if node.domain == "ai.onnx" else node.domain
        if domain == "":  # ONNX's checker knows no other domain's schemas
            super().run_node(node, inputs, device, outputs_info, **kwargs)
        opset = kwargs.get("opset_version")
        if opset is None:
            opset = defs.onnx_opset_version() if domain == "" else 1
        row, opset = _lookup(node, {domain: opset})
        outs = _run(node, row, opset, inputs, kwargs.get("context"))
        return namedtupledict("Outputs", list(node.output))(*outs)

    @classmethod
    def supports_device(cls, device):
        try:
            return Device(device).type == DeviceType.CPU
        except (AttributeError, ValueError):
            return False


prepare = ClgatherBackend.prepare
run_model = ClgatherBackend.run_model
run_node = ClgatherBackend.run_node
supports_device = ClgatherBackend.supports_device
is_compatible = ClgatherBackend.is_compatible

"""Tensors of other libraries in, the caller's kind out: PyTorch tensors and
any object with ``__dlpack__`` (numpy >= 1.22 arrays have one too, and stay
numpy's own path).

Every public function is wrapped by ``accepts_tensors``: each argument that
is a torch tensor or a DLPack producer becomes a numpy view of the same
memory (no copy where numpy can describe the strides), the function runs on
those, and its result is given back in the caller's kind:

- any torch tensor among the arguments: a torch tensor (``torch.from_numpy``
  of the result: no copy), or `out` itself when `out` was a torch tensor
  (written in place, through the numpy view of its memory);
- else (numpy, other DLPack producers): numpy, as before.

torch is never imported here: a tensor is recognised through
``sys.modules["torch"]``, so the package works without torch installed.

bfloat16, which numpy lacks, travels as its bytes: a torch bfloat16 tensor
is seen as numpy's 2-byte void type ``BFLOAT16`` (``dtype("V2")``), which
``_lib.DTYPES`` maps to ``CLG_DTYPE_BFLOAT16``; results of that type go
back to torch as bfloat16 (``view(torch.int16)`` both ways: the same bytes).
"""

import functools
import inspect
import sys

import numpy as np

BFLOAT16 = np.dtype("V2")

# Argument types that are never a foreign tensor: the common case costs one
# set lookup per argument.
_PLAIN = frozenset([np.ndarray, int, float, bool, str, type(None), list,
                    tuple, np.dtype])


def is_torch(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _is_cl(x):
    mod = sys.modules.get("pyopencl.array")
    return mod is not None and isinstance(x, mod.Array)


def _from_torch(t, role):
    """A torch tensor's memory as a numpy array (the same bytes, strides
    and offset): detached from autograd, CPU only."""
    torch = sys.modules["torch"]
    if t.device.type != "cpu":
        raise ValueError(
            "clgather: %s is a torch tensor on %s: clgather reads host (CPU) "
            "tensors; move it with .cpu()" % (role, t.device))
    if t.layout != torch.strided:
        raise TypeError("clgather: %s is a torch tensor of layout %s; "
                        "clgather reads strided (dense) tensors"
                        % (role, t.layout))
    t = t.detach()  # the forward only: no graph is recorded
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(BFLOAT16)
    try:
        return t.numpy()
    except TypeError:
        raise TypeError("clgather: %s has torch dtype %s, which clgather "
                        "does not take" % (role, t.dtype)) from None


def _from_dlpack(x, role):
    try:
        return np.from_dlpack(x)
    except (TypeError, ValueError, RuntimeError, BufferError) as e:
        raise TypeError("clgather: %s (%s) could not be read through "
                        "DLPack: %s" % (role, type(x).__name__, e)) from None


def to_torch(result):
    """A numpy result (array or scalar) as a torch tensor of the same
    memory (a scalar as a 0-d tensor)."""
    torch = sys.modules["torch"]
    if isinstance(result, np.generic):
        result = np.asarray(result)
    if not isinstance(result, np.ndarray):
        return result  # a pyopencl array: a device result stays one
    if result.dtype == BFLOAT16:
        return torch.from_numpy(result.view(np.int16)).view(torch.bfloat16)
    try:
        return torch.from_numpy(result)
    except TypeError:
        raise TypeError("clgather: a result of dtype %s has no torch dtype "
                        "to return it as" % result.dtype.name) from None


def accepts_tensors(fn):
    """fn (a public function of numpy and pyopencl operands) taking torch
    tensors and DLPack producers too, and returning the caller's kind (see
    the module's docstring)."""
    params = list(inspect.signature(fn).parameters)
    out_pos = params.index("out") if "out" in params else None

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        torch_in = False
        out_given = (kwargs.get("out") if "out" in kwargs else
                     args[out_pos] if out_pos is not None
                     and out_pos < len(args) else None)
        out_view = None
        args = list(args)
        for i, x in enumerate(args):
            if type(x) in _PLAIN:
                continue
            role = params[i] if i < len(params) else "argument %d" % i
            if is_torch(x):
                torch_in = True
                args[i] = _from_torch(x, role)
            elif hasattr(x, "__dlpack__") and not _is_cl(x):
                args[i] = _from_dlpack(x, role)
            else:
                continue
            if x is out_given:
                out_view = args[i]
        for k, x in kwargs.items():
            if type(x) in _PLAIN:
                continue
            if is_torch(x):
                torch_in = True
                kwargs[k] = _from_torch(x, k)
            elif hasattr(x, "__dlpack__") and not _is_cl(x):
                kwargs[k] = _from_dlpack(x, k)
            else:
                continue
            if x is out_given:
                out_view = kwargs[k]
        if out_view is not None and is_torch(out_given):
            if out_given.requires_grad:
                raise ValueError(
                    "clgather: out is a torch tensor that requires grad: "
                    "clgather writes it in place, outside autograd (as "
                    "torch refuses out= for such tensors); pass "
                    "out.detach()")
        elif out_view is not None and not out_view.flags.writeable:
            raise ValueError("clgather: out (%s) is read-only through "
                             "DLPack" % type(out_given).__name__)
        result = fn(*args, **kwargs)
        if out_view is not None and result is out_view:
            return out_given  # written in place: the caller's own object
        return to_torch(result) if torch_in else result

    return wrapper

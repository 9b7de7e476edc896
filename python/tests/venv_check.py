"""Run by the python_venv test (run_venv.cmake) with a virtual
environment's interpreter: clgather was installed there by pip, with its
metadata, and runs.

argv: the environment's directory, the expected version (CMake's
PROJECT_VERSION), and the library it must load: a path (given as
CLGATHER_LIBRARY) or "bundled" (the copy inside the installed package)."""
import importlib.metadata
import os
import sys

import numpy as np

venv, version, library = sys.argv[1:4]
venv = os.path.realpath(venv)
assert not os.environ.get("PYTHONPATH"), os.environ["PYTHONPATH"]
assert os.path.realpath(sys.prefix) == venv, (sys.prefix, venv)
import clgather  # noqa: E402

pkg = os.path.realpath(os.path.dirname(clgather.__file__))
assert pkg.startswith(venv + os.sep), "clgather imported from %s" % pkg
meta = importlib.metadata.version("clgather")
assert meta == version == clgather.__version__, (
    "metadata %s, CMake %s, library %s" % (meta, version,
                                            clgather.__version__))
dist = importlib.metadata.distribution("clgather")
assert [r for r in dist.requires or () if r.startswith("numpy")], \
    dist.requires
lib = os.path.realpath(clgather.library_path)
if library == "bundled":
    assert "CLGATHER_LIBRARY" not in os.environ
    assert lib == os.path.join(pkg, "libclgather.so.0"), lib
else:
    assert lib == os.path.realpath(library), (lib, library)
a = np.arange(10, dtype=np.float32)
r = clgather.take(a, [3, -1])
assert r.tobytes() == np.take(a, [3, -1]).tobytes(), r
print("clgather %s installed in %s, library %s" % (meta, pkg, lib))

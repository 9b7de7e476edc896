"""Run by the python_install test (run_installed.cmake): the package and the
library it loads both come from the scratch install prefix (argv[1]),
found without CLGATHER_LIBRARY, a gather gives numpy's bytes, and the
distribution's metadata (importlib.metadata, as pip reads it) names the
package, its version and its files."""
import os
import sys

import numpy as np

prefix = os.path.realpath(sys.argv[1])
assert "CLGATHER_LIBRARY" not in os.environ
import clgather  # noqa: E402

pkg = os.path.realpath(os.path.dirname(clgather.__file__))
lib = os.path.realpath(clgather.library_path)
assert pkg.startswith(prefix + os.sep), "package from %s" % pkg
assert lib.startswith(prefix + os.sep), "library from %s" % lib
a = np.arange(10, dtype=np.float32)
r = clgather.take(a, [3, -1])
assert r.tobytes() == np.take(a, [3, -1]).tobytes(), r
import importlib.metadata as md  # noqa: E402

dist = md.distribution("clgather")
assert dist.version == clgather.__version__, (dist.version,
                                              clgather.__version__)
assert any(r.startswith("numpy") for r in dist.requires or []), dist.requires
files = {str(f) for f in dist.files or []}
assert "clgather/__init__.py" in files and "clgather/torch.py" in files, files
where = os.path.realpath(str(dist.locate_file("clgather/__init__.py")))
assert where == os.path.join(pkg, "__init__.py"), where
print("installed clgather OK", clgather.__version__, lib)

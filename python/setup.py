"""setuptools' hook for what pyproject.toml cannot say (the metadata is
all there): a wheel that carries the shared library.

With the environment variable CLGATHER_BUNDLE_LIBRARY naming a built
libclgather (e.g. build/libclgather.so.0) when the wheel is built, the
library is copied into the package as clgather/libclgather.so.0, where
clgather/_lib.py finds it (after CLGATHER_LIBRARY, before the system's);
the wheel is then tagged for this platform and Python, not as pure Python.
It still needs the system's OpenCL ICD loader (libOpenCL.so.1) and a
driver. Without the variable the package is pure Python and the library is
found as clgather/_lib.py says.
"""

import os

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

BUNDLE = os.environ.get("CLGATHER_BUNDLE_LIBRARY")
BUNDLED_NAME = "libclgather.so.0"  # clgather/_lib.py's "package" candidate


class BuildPy(build_py):
    def run(self):
        super().run()
        # A platform build's build_lib (build/lib.<platform>) is not a pure
        # one's (build/lib): a later wheel without the variable cannot pick
        # up this copy (python_venv checks it).
        if BUNDLE:
            if not os.path.isfile(BUNDLE):
                raise SystemExit("clgather: CLGATHER_BUNDLE_LIBRARY=%s is not "
                                 "a file" % BUNDLE)
            self.copy_file(BUNDLE, os.path.join(self.build_lib, "clgather",
                                                BUNDLED_NAME),
                           preserve_mode=True)


class Dist(Distribution):
    def has_ext_modules(self):
        return bool(BUNDLE)  # a platform wheel when it carries the library


setup(cmdclass={"build_py": BuildPy}, distclass=Dist)

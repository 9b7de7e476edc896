# cmake -P script run by the python_venv test (python/CMakeLists.txt): the
# package as pip users get it. A fresh virtual environment (Debian's
# /usr/bin/python3, with its numpy, pytest, pyopencl and torch visible
# through --system-site-packages), `pip install` of a copy of python/
# (offline: no build isolation, no dependencies fetched, no index), then
# venv_check.py and the whole pytest suite run on the installed copy, with
# no PYTHONPATH (conftest.py checks where clgather came from). Then a wheel
# built with CLGATHER_BUNDLE_LIBRARY carries the library: installed into a
# second environment, it loads its own copy with no CLGATHER_LIBRARY; a
# wheel built without the variable is pure Python again.
# The copy keeps pip's in-tree build (build/, clgather.egg-info/) out of
# the source tree.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/src)
file(COPY ${SOURCE}/pyproject.toml ${SOURCE}/setup.py ${SOURCE}/clgather
  DESTINATION ${WORK_DIR}/src PATTERN __pycache__ EXCLUDE)
set(clean env -u PYTHONPATH -u PYTHONHOME -u PIP_INDEX_URL)
set(vars PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1
  PIP_NO_CACHE_DIR=1)
set(pip_offline --no-build-isolation --no-deps --no-index)

function(step what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("== ${what}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "python_venv: ${what} failed (${rc})")
  endif()
endfunction()

step("venv" ${clean} ${vars} /usr/bin/python3 -m venv --system-site-packages
  ${WORK_DIR}/venv)
step("pip install" ${clean} ${vars} ${WORK_DIR}/venv/bin/python -m pip install
  ${pip_offline} ${WORK_DIR}/src)
step("venv_check.py" ${clean} ${vars} ${WORK_DIR}/venv/bin/python ${CHECK}
  ${WORK_DIR}/venv ${VERSION} ${LIBRARY})
step("pytest on the installed copy" ${clean} ${vars}
  CLGATHER_EXPECT_PACKAGE=${WORK_DIR}/venv
  ${WORK_DIR}/venv/bin/python -m pytest -q -p no:cacheprovider ${TESTS})

# The wheel that carries the library.
step("pip wheel (bundled)" ${clean} ${vars} CLGATHER_BUNDLE_LIBRARY=${LIBRARY}
  ${WORK_DIR}/venv/bin/python -m pip wheel ${pip_offline}
  -w ${WORK_DIR}/bundled ${WORK_DIR}/src)
file(GLOB wheel ${WORK_DIR}/bundled/clgather-${VERSION}-*.whl)
if(NOT wheel OR wheel MATCHES "-none-any\\.whl$")
  message(FATAL_ERROR "python_venv: no platform wheel in bundled/: '${wheel}'")
endif()
step("venv (bundled)" ${clean} ${vars} /usr/bin/python3 -m venv
  --system-site-packages ${WORK_DIR}/venv-bundled)
step("pip install the bundled wheel" ${clean} ${vars}
  ${WORK_DIR}/venv-bundled/bin/python -m pip install ${pip_offline} ${wheel})
step("venv_check.py (bundled)" ${clean} -u CLGATHER_LIBRARY ${vars}
  ${WORK_DIR}/venv-bundled/bin/python ${CHECK} ${WORK_DIR}/venv-bundled
  ${VERSION} bundled)
step("pip wheel (plain, after the bundled one)" ${clean} -u CLGATHER_BUNDLE_LIBRARY ${vars}
  ${WORK_DIR}/venv/bin/python -m pip wheel ${pip_offline}
  -w ${WORK_DIR}/plain ${WORK_DIR}/src)
file(GLOB wheel ${WORK_DIR}/plain/clgather-${VERSION}-py3-none-any.whl)
if(NOT wheel)
  message(FATAL_ERROR "python_venv: no pure-Python wheel in plain/")
endif()
step("the plain wheel carries no library" ${clean} ${vars}
  ${WORK_DIR}/venv/bin/python -c
  "import sys, zipfile; n = [f for f in zipfile.ZipFile(sys.argv[1]).namelist() if 'libclgather' in f]; sys.exit(n and 'carries %s' % n)"
  ${wheel})
message("python_venv OK")

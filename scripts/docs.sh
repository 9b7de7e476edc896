#!/usr/bin/env bash
# Builds the documentation site into build-docs/html/ (or $1/html): README.md
# and the guides of docs/*.md (myst-parser), and the API reference that
# Doxygen generates from the comments of include/clgather/*.h (XML, read by
# breathe) and autodoc from the Python package's docstrings, assembled by
# Sphinx with the Read the Docs theme. Everything
# from Debian's packages: `bash scripts/install-deps.sh docs` installs them.
#
# Warnings are errors, so CI fails on:
#  - a public function, type, field or macro without a doc comment, or a
#    malformed @-command (Doxygen: WARN_IF_UNDOCUMENTED, WARN_AS_ERROR =
#    FAIL_ON_WARNINGS in docs/Doxyfile);
#  - a link between pages, or to a heading's anchor, that leads nowhere, a
#    page missing from the table of contents, a declaration breathe cannot
#    parse (sphinx-build -W).
# Exit status: 0 when the site was built without a warning, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-docs}
missing=()
command -v doxygen >/dev/null || missing+=(doxygen)
for m in sphinx breathe myst_parser sphinx_rtd_theme; do
  /usr/bin/python3 -c "import $m" 2>/dev/null || missing+=("python3 module $m")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "docs: missing ${missing[*]}: run bash scripts/install-deps.sh docs" >&2
  exit 1
fi
start=$SECONDS
rm -rf "$out/doxygen" "$out/html" "$out/doctrees"
mkdir -p "$out/doxygen"
out=$(cd "$out" && pwd)
echo "docs: Doxygen over include/clgather/*.h"
if ! DOXY_OUT="$out/doxygen" doxygen docs/Doxyfile; then
  echo "docs: Doxygen warned (above): every public symbol needs its comment" >&2
  exit 1
fi
# The Python package's reference (docs/api/python.rst) imports the package
# from python/: against CLGATHER_LIBRARY, else scripts/test.sh's build of
# the library, else one built here (the library alone).
if [ -z "${CLGATHER_LIBRARY:-}" ]; then
  if [ -e build/libclgather.so ]; then
    CLGATHER_LIBRARY=$PWD/build/libclgather.so
  else
    echo "docs: building libclgather for the Python package's reference"
    cmake -S . -B "$out/lib" >/dev/null
    cmake --build "$out/lib" --target clgather -j"$(nproc)" >/dev/null
    CLGATHER_LIBRARY=$out/lib/libclgather.so
  fi
fi
export CLGATHER_LIBRARY PYTHONDONTWRITEBYTECODE=1
echo "docs: Sphinx"
if ! CLGATHER_DOXYGEN_XML="$out/doxygen/xml" /usr/bin/python3 -m sphinx \
  -W --keep-going -q -c docs -d "$out/doctrees" -b html . "$out/html"; then
  echo "docs: Sphinx warned (above)" >&2
  exit 1
fi
# The site's front page is docs/index; the root's index.html leads there.
printf '<!DOCTYPE html><meta http-equiv="refresh" content="0; url=docs/index.html"><a href="docs/index.html">clgather</a>\n' >"$out/html/index.html"
echo "docs: built $out/html/index.html in $((SECONDS - start)) s"

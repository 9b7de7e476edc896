#!/usr/bin/env bash
# Builds clgather's Debian packages (debian/: libclgather0, libclgather-dev,
# clgather, libclgather-mpi0, libclgather-mpi-dev, clgather-mpi,
# python3-clgather) with `dpkg-buildpackage -us -uc -b` in a scratch copy of
# the tree (nothing lands in the checkout), installs them on this machine,
# checks what they install (the CLIs and their man pages, the pkg-config
# files, a CMake consumer with the component mpi, pkg-config consumers, runs
# of clgather-mpi under mpirun, the Python module), prints lintian's report,
# and purges every package it installed, so the machine is left as it was.
#
# Needs root, or sudo, to install packages: CI runs it as root on a
# throwaway machine. The package build skips the test suite
# (DEB_BUILD_OPTIONS=nocheck; scripts/test.sh runs it). About 3-4 minutes on
# 2 cores. python3-clgather is built and checked only when the tree has
# python/CMakeLists.txt (else build profile pkg.clgather.nopython).
# TEST_PACKAGES_OUT=DIR keeps the .debs, the .changes and the logs there.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$PWD
start=$SECONDS

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "test-packages: must run as root (it installs packages with apt-get)" >&2
    exit 1
  fi
  sudo="sudo"
fi
bash scripts/install-deps.sh packaging
. scripts/icd-pocl.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/clgather-packages.XXXXXX")
ours=(libclgather0 libclgather-dev clgather libclgather-mpi0
      libclgather-mpi-dev clgather-mpi python3-clgather)
before=""   # the installed packages before ours, once known
added=()
cleanup() {
  local rc=$?
  if [ -n "$before" ]; then
    mapfile -t added < <(comm -13 <(echo "$before") \
      <(dpkg-query -W -f='${Package}\n' | sort))
  fi
  if [ ${#added[@]} -gt 0 ]; then
    echo "test-packages: purging what was installed: ${added[*]}"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq "${added[@]}" \
      >/dev/null || { echo "test-packages: purge failed" >&2; rc=1; }
  fi
  if [ -n "${TEST_PACKAGES_OUT:-}" ]; then
    mkdir -p "$TEST_PACKAGES_OUT"
    cp "$work"/*.deb "$work"/*.changes "$work"/*.log "$TEST_PACKAGES_OUT"/ \
      2>/dev/null || true
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
fail() { echo "test-packages: FAIL: $*" >&2; exit 1; }
ok() { echo "test-packages: ok: $*"; }

# ------------------------------------------------------------- build
# The scratch copy: tracked files and untracked ones git does not ignore
# (so no build directory); outside git, everything but build*/.
mkdir -p "$work/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf - 2>/dev/null |
    tar -xf - -C "$work/src"
else
  tar --exclude='./build*' -cf - . | tar -xf - -C "$work/src"
fi

profiles=nocheck
python=yes
if [ ! -f python/CMakeLists.txt ]; then
  python=no
  profiles+=",pkg.clgather.nopython"
  echo "test-packages: no python/CMakeLists.txt in this tree: python3-clgather" \
    "is not built or checked (build profile pkg.clgather.nopython)"
fi
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
cmake_version=$(sed -n 's/^project(clgather VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ "$version" = "$cmake_version" ] ||
  fail "debian/changelog says $version, CMakeLists.txt $cmake_version"

echo "test-packages: dpkg-buildpackage -us -uc -b -P$profiles (log: build.log)"
t0=$SECONDS
if ! (cd "$work/src" &&
      DEB_BUILD_OPTIONS="nocheck parallel=2" \
        dpkg-buildpackage -us -uc -b -P"$profiles") >"$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log"
  fail "dpkg-buildpackage failed"
fi
ok "packages built in $((SECONDS - t0)) s"
expect=(libclgather0 libclgather-dev clgather libclgather-mpi0
        libclgather-mpi-dev clgather-mpi)
[ "$python" = yes ] && expect+=(python3-clgather)
debs=()
for p in "${expect[@]}"; do
  f=$(find "$work" -maxdepth 1 -name "${p}_${version}_*.deb" | head -n 1)
  [ -n "$f" ] || fail "no ${p}_${version}_*.deb was built"
  debs+=("$f")
  echo "  $(basename "$f"): $(dpkg-deb -c "$f" | grep -cv '/$') files"
done
changes=$(find "$work" -maxdepth 1 -name "clgather_${version}_*.changes")

# ------------------------------------------------------------ install
for p in "${ours[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    echo "test-packages: $p was already installed: purging it first"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq "$p" >/dev/null
  fi
done
before=$(dpkg-query -W -f='${Package}\n' | sort)
if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${debs[@]}" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  fail "apt-get install of the packages failed"
fi
mapfile -t added < <(comm -13 <(echo "$before") \
  <(dpkg-query -W -f='${Package}\n' | sort))
ok "installed: ${added[*]}"

# ------------------------------------------------------------- checks
export CLGATHER_CACHE_DIR="$work/cache"
cd "$work"   # nothing found in the source tree by accident

[ "$(command -v clgather)" = /usr/bin/clgather ] ||
  fail "clgather is $(command -v clgather), not /usr/bin/clgather"
out=$(clgather --version)
[ "$out" = "clgather $version" ] || fail "clgather --version: '$out'"
[ "$(clgather -V)" = "$out" ] || fail "clgather -V differs from --version"
ok "clgather --version: $out"
clgather devices >/dev/null || fail "clgather devices"

[ -f /usr/share/bash-completion/completions/clgather ] ||
  fail "the bash completion of clgather is not installed"
ok "bash completion: /usr/share/bash-completion/completions/clgather"

man_path=$(man -w clgather) || fail "man -w clgather"
[ "$man_path" = /usr/share/man/man1/clgather.1.gz ] ||
  fail "man -w clgather: $man_path"
page=$(MANPAGER=cat MANWIDTH=80 man clgather 2>/dev/null)
for want in SYNOPSIS "clgather devices" "--version" CLGATHER_DEVICE; do
  grep -qe "$want" <<<"$page" || fail "the man page lacks '$want'"
done
ok "man -w clgather: $man_path"

out=$(pkg-config --modversion clgather) || fail "pkg-config --modversion"
[ "$out" = "$version" ] || fail "pkg-config --modversion clgather: $out"
flags=$(pkg-config --cflags --libs clgather)
grep -qw -- -lOpenCL <<<"$flags" || fail "pkg-config --libs lacks -lOpenCL: $flags"
ok "pkg-config --modversion clgather: $out (flags: $flags)"

# The distributed library: its pkg-config file requires clgather and Open
# MPI's ompi-c.
out=$(pkg-config --modversion clgather-mpi) ||
  fail "pkg-config --modversion clgather-mpi"
[ "$out" = "$version" ] || fail "pkg-config --modversion clgather-mpi: $out"
mpi_flags=$(pkg-config --cflags --libs clgather-mpi)
for want in -lclgather_mpi -lclgather -lOpenCL -lmpi; do
  grep -qw -- "$want" <<<"$mpi_flags" ||
    fail "pkg-config --libs clgather-mpi lacks $want: $mpi_flags"
done
ok "pkg-config --modversion clgather-mpi: $out (flags: $mpi_flags)"

# The CMake consumer, with the component mpi (consumer_mpi:
# clgather::clgather_mpi).
consumer=$tree/tests/install/consumer
if ! { cmake -S "$consumer" -B "$work/cmake-consumer" -DWITH_MPI=ON &&
        cmake --build "$work/cmake-consumer"; } >"$work/consumer.log" 2>&1; then
  cat "$work/consumer.log"
  fail "CMake consumer (find_package(clgather COMPONENTS mpi))"
fi
for exe in consumer consumer_static consumer_cl consumer_mpi; do
  "$work/cmake-consumer/$exe" >/dev/null || fail "CMake consumer $exe"
done
ok "CMake consumer: find_package(clgather COMPONENTS mpi), shared, static," \
  "OpenCL calls, clgather::clgather_mpi"

for src in consumer consumer_cl; do
  # shellcheck disable=SC2086 # the flags are words
  cc -std=c11 "$consumer/$src.c" $flags -o "$work/pc_$src" ||
    fail "pkg-config consumer $src does not build"
  "$work/pc_$src" >/dev/null || fail "pkg-config consumer $src"
done
ok "pkg-config consumer: cc \$(pkg-config --cflags --libs clgather)"
# shellcheck disable=SC2086 # the flags are words
cc -std=c11 "$consumer/consumer_mpi.c" $mpi_flags -o "$work/pc_consumer_mpi" ||
  fail "pkg-config consumer consumer_mpi does not build"
"$work/pc_consumer_mpi" >/dev/null || fail "pkg-config consumer consumer_mpi"
ok "pkg-config consumer: cc \$(pkg-config --cflags --libs clgather-mpi)"

# clgather-mpi: --version and the man page without mpirun, then real runs
# under mpirun with 2 ranks (as root, as CI runs, Open MPI needs
# OMPI_ALLOW_RUN_AS_ROOT*; --oversubscribe for machines with 1 core).
[ "$(command -v clgather-mpi)" = /usr/bin/clgather-mpi ] ||
  fail "clgather-mpi is $(command -v clgather-mpi), not /usr/bin/clgather-mpi"
out=$(clgather-mpi --version)
[ "$out" = "clgather-mpi $version" ] || fail "clgather-mpi --version: '$out'"
[ "$(clgather-mpi -V)" = "$out" ] || fail "clgather-mpi -V differs from --version"
ok "clgather-mpi --version: $out"
man_path=$(man -w clgather-mpi) || fail "man -w clgather-mpi"
[ "$man_path" = /usr/share/man/man1/clgather-mpi.1.gz ] ||
  fail "man -w clgather-mpi: $man_path"
page=$(MANPAGER=cat MANWIDTH=80 man clgather-mpi 2>/dev/null)
for want in SYNOPSIS mpirun "--version" CLGATHER_DEVICE; do
  grep -qe "$want" <<<"$page" || fail "the clgather-mpi man page lacks '$want'"
done
ok "man -w clgather-mpi: $man_path"

command -v mpirun >/dev/null || fail "no mpirun (openmpi-bin) to run clgather-mpi"
mpirun_2=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
          mpirun --oversubscribe -np 2)
if ! "${mpirun_2[@]}" clgather-mpi bench --rows 100 --width 4 --lookups 10 \
    --reps 1 >"$work/mpi-bench.log" 2>&1; then
  cat "$work/mpi-bench.log"
  fail "mpirun -np 2 clgather-mpi bench"
fi
grep -q "clgather-mpi bench: 2 ranks" "$work/mpi-bench.log" || {
  cat "$work/mpi-bench.log"
  fail "mpirun -np 2 clgather-mpi bench: no '2 ranks' line"
}
ok "mpirun -np 2 clgather-mpi bench --rows 100 --width 4 --lookups 10 --reps 1"
# The same rows as the single-device CLI, byte for byte (numpy writes the
# inputs; skipped without it).
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  /usr/bin/python3 - "$work" <<'EOF' || fail "writing the gather inputs"
import sys
import numpy as np
d = sys.argv[1]
np.save(d + "/mpi_data.npy", np.arange(30, dtype=np.float32).reshape(10, 3))
np.save(d + "/mpi_idx.npy", np.array([9, 0, -1, 4, 4, 7], dtype=np.int64))
EOF
  clgather gather "$work/mpi_data.npy" "$work/mpi_idx.npy" \
    -o "$work/mpi_want.npy" || fail "clgather gather"
  if ! "${mpirun_2[@]}" clgather-mpi gather "$work/mpi_data.npy" \
      "$work/mpi_idx.npy" -o "$work/mpi_got.npy" >"$work/mpi-gather.log" 2>&1
  then
    cat "$work/mpi-gather.log"
    fail "mpirun -np 2 clgather-mpi gather"
  fi
  cmp -s "$work/mpi_want.npy" "$work/mpi_got.npy" ||
    fail "clgather-mpi gather differs from clgather gather"
  ok "mpirun -np 2 clgather-mpi gather: the same bytes as clgather gather"
else
  echo "test-packages: clgather-mpi gather: not checked (no python3-numpy)"
fi

if [ "$python" = yes ]; then
  out=$(/usr/bin/python3 -c "import clgather; print(clgather.__version__)") ||
    fail "/usr/bin/python3 -c 'import clgather'"
  [ "$out" = "$version" ] || fail "clgather.__version__ is '$out'"
  lib=$(/usr/bin/python3 -c "import clgather; print(clgather.library_path)")
  case $lib in
  /usr/lib/*) ;;
  *) fail "the Python module loaded $lib, not the packaged library" ;;
  esac
  /usr/bin/python3 - <<'EOF' || fail "clgather.take against numpy.take"
import numpy as np
import clgather
a = np.arange(24, dtype=np.float32).reshape(4, 6)
i = np.array([3, 0, -1], dtype=np.int64)
got = clgather.take(a, i, axis=0)
assert got.dtype == a.dtype and np.array_equal(got, np.take(a, i, axis=0)), got
try:
    clgather.take(a, np.array([4]), axis=0)
except IndexError:
    pass
else:
    raise SystemExit("an out-of-bounds index raised nothing")
EOF
  ok "python3: import clgather -> $out, library $lib"
  # The package's distribution metadata, as pip and importlib read it.
  meta=$(/usr/bin/python3 -c "import importlib.metadata as m; print(m.version('clgather'))") ||
    fail "importlib.metadata knows no clgather"
  [ "$meta" = "$version" ] || fail "importlib.metadata.version('clgather') is '$meta'"
  ok "python3: importlib.metadata.version('clgather') -> $meta"
else
  echo "test-packages: python3-clgather: not checked (no python/CMakeLists.txt)"
fi

# ------------------------------------------------------------ lintian
echo "test-packages: lintian $(basename "$changes"):"
lint_rc=0
lintian --display-info --fail-on error "$changes" >"$work/lintian.log" 2>&1 ||
  lint_rc=$?
sed 's/^/  /' "$work/lintian.log"
[ -s "$work/lintian.log" ] || echo "  (no tags)"
[ $lint_rc -eq 0 ] || fail "lintian reports errors"
# The shared libraries have symbols files (debian/*.symbols).
! grep -q "no-symbols-control-file" "$work/lintian.log" ||
  fail "lintian: a shared library package without a symbols file"
ok "lintian: no error"

echo "test-packages: all checks passed in $((SECONDS - start)) s"

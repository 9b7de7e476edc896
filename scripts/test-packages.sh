#!/usr/bin/env bash
# Builds clgather's Debian packages (debian/: libclgather0, libclgather-dev,
# clgather, python3-clgather) with `dpkg-buildpackage -us -uc -b` in a
# scratch copy of the tree (nothing lands in the checkout), installs them on
# this machine, checks what they install (the CLI and its man page, the
# pkg-config file, a CMake consumer, a pkg-config consumer, the Python
# module), prints lintian's report, and purges every package it installed,
# so the machine is left as it was.
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

work=$(mktemp -d "${TMPDIR:-/tmp}/clgather-packages.XXXXXX")
ours=(libclgather0 libclgather-dev clgather python3-clgather)
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
expect=(libclgather0 libclgather-dev clgather)
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

consumer=$tree/tests/install/consumer
if ! { cmake -S "$consumer" -B "$work/cmake-consumer" &&
        cmake --build "$work/cmake-consumer"; } >"$work/consumer.log" 2>&1; then
  cat "$work/consumer.log"
  fail "CMake consumer (find_package(clgather))"
fi
for exe in consumer consumer_static consumer_cl; do
  "$work/cmake-consumer/$exe" >/dev/null || fail "CMake consumer $exe"
done
ok "CMake consumer: find_package(clgather), shared, static, OpenCL calls"

for src in consumer consumer_cl; do
  # shellcheck disable=SC2086 # the flags are words
  cc -std=c11 "$consumer/$src.c" $flags -o "$work/pc_$src" ||
    fail "pkg-config consumer $src does not build"
  "$work/pc_$src" >/dev/null || fail "pkg-config consumer $src"
done
ok "pkg-config consumer: cc \$(pkg-config --cflags --libs clgather)"

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
ok "lintian: no error"

echo "test-packages: all checks passed in $((SECONDS - start)) s"

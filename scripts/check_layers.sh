#!/usr/bin/env bash
# The module order of host/ (host/README.md): a file of a module includes
# only headers of its own module or of modules before it, and never
# internal.h (the tests' umbrella). And the files comments name: every path
# a comment of a C source, header, kernel, .def or CMake file names (a
# token ending in .c .h .cl .cmake .sh .py .md .def .txt) is a file of the
# repository, by its name alone or by its path or the tail of one. And what
# the objects of a build call (nm, readelf): no two files of a module call
# each other, directly or around a longer cycle; an object of a module
# references no symbol defined by a module after it, an operator's file
# (ops/operators.def) no symbol of another operator's file, and check/ and
# ops/ export no symbol (the public entry points are run/'s).
#
# Usage: check_layers.sh [BUILD_DIR]; BUILD_DIR (or $CLGATHER_BUILD_DIR, or
# the repository's build/ when it has one) is a CMake build tree of the
# library, whose clgather_objects target's objects are read
# (CMakeFiles/clgather_objects.dir); ctest passes its own. Without one the
# calls are not checked (it says so). Prints each violation; exit 1 if any.
set -euo pipefail
build=${1:-${CLGATHER_BUILD_DIR:-}}
if [ -n "$build" ]; then
  build=$(cd "$build" && pwd)
elif [ -d "$(dirname "$0")/../build" ]; then
  build=$(cd "$(dirname "$0")/../build" && pwd)
fi
cd "$(dirname "$0")/../host"
order=(core device check ops run)
bad=0
for i in "${!order[@]}"; do
  mod=${order[$i]}
  allowed=" ${order[*]:0:$((i + 1))} "
  for f in "$mod"/*; do
    [ -f "$f" ] || continue
    while IFS= read -r line; do
      inc=${line#*\"}
      inc=${inc%%\"*}
      case $inc in
      internal.h)
        echo "$f: includes internal.h (tests only)"; bad=1 ;;
      */*)
        dep=${inc%%/*}
        if [[ $allowed != *" $dep "* ]]; then
          echo "$f: includes $inc, but $mod comes before $dep"; bad=1
        fi ;;
      esac
    done < <(grep -E '^#include "' "$f" || true)
  done
done
[ "$bad" = 0 ] && echo "host layers: ${order[*]}: ok"

# Names a comment may give that are no file of the repository, on purpose:
# placeholders (source.c, file.cl; a path with FILE, KERNEL, NAME or MODULE
# in it, ops/FILE.c, is read as a pattern: some file must match it, each
# placeholder standing for a name); system and other projects' headers (CL/cl.h, mpi.h, CLBlast's
# clblast_c.h, StarPU's starpu.h and starpu_opencl.h); ONNX's docs/IR.md; files generated in the build tree
# (protoc-c's onnx.pb-c.h, the embedded kernels' clgather_kernels.c,
# clgather_export.h, python's _installed.py) or at install
# (clgatherConfig.cmake, clgather_mpiTargets.cmake).
outside='^(source\.c|file\.cl|CL/cl\.h|mpi\.h'
outside+='|criterion/[a-z]+\.h|clblast_c\.h|starpu(_[a-z]+)?\.h|docs/IR\.md'
outside+='|onnx\.pb-c\.h'
outside+='|clgather_kernels\.c|clgather_export\.h|_installed\.py'
outside+='|clgatherConfig\.cmake|clgather(_mpi)?Targets\.cmake)$'
cd ..
# Every file outside hidden and build folders, and the sources to read.
files=$(find . -type d \( -name '.?*' -o -name 'build*' -o -name 'obj-*' \) \
  -prune -o -type f -print | sed 's|^\./||')
sources=$(grep -E '(\.[ch]|\.cl|\.def|\.cmake|\.cmake\.in|/CMakeLists\.txt)$' \
  <<<"$files")
missing=$(awk -v outside="$outside" '
  BEGIN {
    name = "[A-Za-z0-9_./+-]*[A-Za-z0-9_][.](c|h|cl|cmake|sh|py|md|def|txt)"
  }
  # A file is named by its path or any tail of it (host/ops/gather.c:
  # ops/gather.c, gather.c).
  FILENAME == "-" {
    for (f = $0; ; f = substr(f, i + 1)) {
      have[f] = 1
      if (!(i = index(f, "/"))) break
    }
    next
  }
  FNR == 1 { inc = 0; cmake = FILENAME ~ /(CMakeLists\.txt|\.cmake(\.in)?)$/ }
  {
    # The comment text of the line: after # in CMake; in C, what lies
    # between /* and */ (across lines) or after //, strings and characters
    # out.
    s = $0; text = ""
    if (cmake) {
      gsub(/"(\\.|[^"\\])*"/, "\"\"", s)
      if (i = index(s, "#")) text = substr(s, i + 1)
      s = ""
    }
    while (s != "") {
      if (inc) {
        if (e = index(s, "*/")) {
          text = text " " substr(s, 1, e - 1); s = substr(s, e + 2); inc = 0
        } else {
          text = text " " s; s = ""
        }
        continue
      }
      gsub(/\047(\\.|[^\047\\])\047/, "0", s)
      gsub(/"(\\.|[^"\\])*"/, "\"\"", s)
      b = index(s, "/*"); l = index(s, "//")
      if (l && (!b || l < b)) { text = text " " substr(s, l + 2); s = "" }
      else if (b) { s = substr(s, b + 2); inc = 1 }
      else s = ""
    }
    while (match(text, name)) {
      p = substr(text, RSTART, RLENGTH); before = substr(text, RSTART - 1, 1)
      text = substr(text, RSTART + RLENGTH)
      # Not a name: foo.h2m, a URL, ${VAR}/x.c (a folder from a variable).
      if (text ~ /^[A-Za-z0-9_]/ || before ~ /[$}]/ || p ~ /\/\//) continue
      while (p ~ /^\.\.?\//) sub(/^\.\.?\//, "", p)
      if (p ~ /(FILE|KERNEL|NAME|MODULE)/) {
        # A placeholder: a pattern some file (or tail of a path) matches.
        if (!(p in pattern_ok)) {
          re = p
          gsub(/[.+]/, "[&]", re)
          gsub(/FILE|KERNEL|NAME|MODULE/, "[A-Za-z0-9_]+", re)
          re = "^" re "$"
          pattern_ok[p] = 0
          for (f in have) if (f ~ re) { pattern_ok[p] = 1; break }
        }
        if (!pattern_ok[p])
          print FILENAME ":" FNR ": names " p ", which no file here matches"
        continue
      }
      if (!(p in have) && p !~ outside)
        print FILENAME ":" FNR ": names " p ", which is no file here"
    }
  }' - $sources <<<"$files")
if [ -n "$missing" ]; then
  echo "$missing"; bad=1
else
  echo "file names in comments: ok"
fi

# The calls, from the objects of host/MODULE/FILE.c in the build tree (an
# object whose source is gone is stale, and skipped).
if [ -z "$build" ]; then
  echo "host calls: no build tree (give one as argument or" \
    "CLGATHER_BUILD_DIR): not checked"
  exit "$bad"
fi
dir=$build/CMakeFiles/clgather_objects.dir
objects=()
while IFS= read -r o; do
  src=${o#"$dir"/}
  src=host/${src#*host/} # past a configuration's folder, if any
  src=${src%.o}
  mod=${src#host/}
  mod=${mod%%/*}
  if [ -f "$src" ] && [[ " ${order[*]} " == *" $mod "* ]]; then
    objects+=("$src" "$o")
  fi
done < <([ -d "$dir" ] && find "$dir" -path '*/host/*' -name '*.o' | sort)
if [ "${#objects[@]}" = 0 ]; then
  echo "host calls: no object of the clgather_objects target in $dir"
  exit 1
fi
# The operators' own files, from the registry (its comment's example line
# aside: ENUM is not a CLG_OP_ value).
opfiles=$(tr '\n' ' ' <host/ops/operators.def |
  grep -oE 'CLG_OPERATOR\(CLG_OP_[A-Z_0-9]+, *[a-z_0-9]+, *[a-z_0-9]+' |
  sed -E 's/.*, *//' | sort -u | tr '\n' ' ')
# One line per global symbol: source file, module, symbol, nm type (U:
# referenced, another capital: defined); and "X file module symbol" for
# each exported one (default visibility, defined).
calls=$(for ((k = 0; k < ${#objects[@]}; k += 2)); do
  src=${objects[k]} o=${objects[k + 1]}
  mod=${src#host/}
  mod=${mod%%/*}
  nm -P "$o" | awk -v f="$src" -v m="$mod" '$2 ~ /^[A-Z]$/ {
    print f, m, $1, $2 }'
  readelf -sW "$o" | awk -v f="$src" -v m="$mod" '
    $5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print "X", f, m, $8 }'
done)
wrong=$(awk -v order="${order[*]}" -v opfiles=" $opfiles" '
  BEGIN {
    n = split(order, o, " ")
    for (i = 1; i <= n; ++i) rank[o[i]] = i
  }
  $1 == "X" { if ($3 == "check" || $3 == "ops") print $2 ": exports " $4 \
                ", but check/ and ops/ export nothing (public entry " \
                "points go in run/, e.g. run/api.c)"
              next }
  $4 == "U" { use[++uses] = $0; next }
  { def[$3] = $1; defmod[$3] = $2 }
  # A cycle of calls between files of one module (a file split by size,
  # not by concept, calls back into the one it came from): depth first
  # from each file, over the edges "f references a symbol defined in t".
  function visit(f,    i, t) {
    state[f] = 1
    path[++depth] = f
    for (i = 1; i <= nout[f]; ++i) {
      t = out[f, i]
      if (state[t] == 1 && !(t in cycled)) {
        cyc = t
        for (j = depth; j >= 1 && path[j] != t; --j) cyc = path[j] " -> " cyc
        print t ": a cycle of calls inside its module: " t " -> " cyc
        cycled[t] = 1
      } else if (!state[t])
        visit(t)
    }
    --depth
    state[f] = 2
  }
  END {
    for (u = 1; u <= uses; ++u) {
      split(use[u], w, " ")
      f = w[1]; m = w[2]; s = w[3]
      if ((s in def) && f != def[s] && defmod[s] == m && !((f, def[s]) in edge)) {
        edge[f, def[s]] = 1
        out[f, ++nout[f]] = def[s]
        files[f] = 1
      }
    }
    for (f in files)
      if (!state[f]) visit(f)
    for (u = 1; u <= uses; ++u) {
      split(use[u], w, " ")
      f = w[1]; m = w[2]; s = w[3]
      if (!(s in def)) continue
      if (rank[defmod[s]] > rank[m])
        print f ": references " s ", defined in " def[s] ", but " m \
          " comes before " defmod[s]
      a = f; b = def[s]
      sub(/^host\/ops\//, "", a); sub(/\.c$/, "", a)
      sub(/^host\/ops\//, "", b); sub(/\.c$/, "", b)
      if (f != def[s] && index(opfiles, " " a " ") &&
          index(opfiles, " " b " "))
        print f ": references " s ", defined in " def[s] ": an operator" \
          "\047s file uses no other operator\047s (shared helpers: " \
          "ops/op_shared.c)"
    }
  }' <<<"$calls")
if [ -n "$wrong" ]; then
  echo "$wrong"; bad=1
else
  echo "host calls: $((${#objects[@]} / 2)) objects of $build: ok"
fi
exit "$bad"

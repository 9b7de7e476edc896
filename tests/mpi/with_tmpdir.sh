#!/bin/sh
# with_tmpdir.sh COMMAND...: COMMAND (an mpirun) with TMPDIR a fresh
# directory of its own under /tmp, removed afterwards; COMMAND's status.
# Open MPI keeps a job's session directory under $TMPDIR/ompi.HOST.UID, and
# two jobs sharing it race: one's cleanup removes the directory the other
# is creating its pid.N in ("A call to mkdir was unable to create the
# desired directory", then orte_init fails), seen with ctest -j2. A short
# path: Open MPI puts its Unix sockets there (at most 107 bytes a path).
d=$(mktemp -d /tmp/clgmpi.XXXXXX) || exit 1
TMPDIR=$d "$@"
rc=$?
rm -rf "$d"
exit "$rc"

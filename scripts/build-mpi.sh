#!/bin/sh
# Builds the MPI layer, libhyprof_mpi.so (native/mpi/), next to libhyprof.so in the directory given.
# MPI implementations differ in ABI (MPI_Comm is a pointer in Open MPI, an int in MPICH), so the
# wrappers are compiled with the MPI compiler of the implementation in use: $MPICC, else mpicc on the
# PATH. They are linked with the plain C compiler and WITHOUT libmpi: every MPI symbol they use is a
# weak reference, so the library can be preloaded into any process (mpirun, a shell, a program
# without MPI) and resolves MPI only where the program itself brought it (docs/mpi.md).
# Without an MPI compiler nothing is built and the build goes on: MPI is optional for measuring.
set -eu
out="$1"
stamp="$out/libhyprof_mpi.stamp"
mpicc="${MPICC:-mpicc}"
cc="${CC:-cc}"
cd "$(dirname "$0")/.."
if ! command -v "$mpicc" >/dev/null 2>&1; then
  echo "hyprof: no MPI compiler ($mpicc) found: the MPI layer (libhyprof_mpi.so) is not built;" \
    "MPI programs are measured without MPI events (docs/mpi.md)" >&2
  rm -f "$out/libhyprof_mpi.so"
  : > "$stamp"
  exit 0
fi
objs="$out/obj.mpi"
mkdir -p "$objs"
for src in native/mpi/*.c; do
  "$mpicc" -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter \
    -Inative/include -Inative -c "$src" -o "$objs/$(basename "$src" .c).o"
done
"$cc" -shared -o "$out/libhyprof_mpi.so.tmp" "$objs"/*.o -L"$out" -lhyprof -ldl \
  -Wl,-soname,libhyprof_mpi.so -Wl,-rpath,'$ORIGIN' -Wl,-z,nodelete
mv "$out/libhyprof_mpi.so.tmp" "$out/libhyprof_mpi.so"
: > "$stamp"

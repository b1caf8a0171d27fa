#!/bin/sh
# Runs at `npm install` after node-gyp-build. A build from source has built the MPI layer already
# (binding.gyp). With the prebuilt binaries it is built here, beside the prebuilt libhyprof.so: the
# MPI layer must be compiled with the user's own MPI compiler (MPI implementations differ in ABI), so
# it is never shipped prebuilt. Without an MPI compiler, build-mpi.sh says so and nothing is built.
set -eu
cd "$(dirname "$0")/.."
[ -f build/Release/libhyprof.so ] && exit 0
dir="prebuilds/$(node -p 'process.platform + "-" + process.arch')"
[ -f "$dir/libhyprof.so" ] || exit 0
command -v "${MPICC:-mpicc}" >/dev/null 2>&1 || {
  echo "hyprof: no MPI compiler (${MPICC:-mpicc}) found: the MPI layer (libhyprof_mpi.so) is not built;" \
    "MPI programs are measured without MPI events (docs/mpi.md)" >&2
  exit 0
}
sh scripts/build-mpi.sh "$dir"
rm -rf "$dir/obj.mpi" "$dir/libhyprof_mpi.stamp"

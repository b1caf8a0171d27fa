#!/bin/sh
# The C sources of the runtime (libhyprof.so and the Node addon): every .c of native/ but the addon's
# and the MPI layer's (a library of its own, scripts/build-mpi.sh). One list for both builds:
# binding.gyp and the Makefile each run this script, relative to the package root.
cd "$(dirname "$0")/.." && find native -name '*.c' -not -path 'native/addon/*' -not -path 'native/mpi/*' | LC_ALL=C sort

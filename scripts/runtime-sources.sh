#!/bin/sh
# The C sources of the runtime (libhyprof.so and the Node addon): every .c of native/ but the addon's,
# the MPI layer's and the CUDA layer's (libraries of their own, scripts/build-mpi.sh, scripts/build-cuda.sh), the OTF2 writer's and the OTF2 reader's
# (programs of their own, scripts/build-otf2.sh and scripts/build-otf2-read.sh). One list for both builds:
# binding.gyp and the Makefile each run this script, relative to the package root.
cd "$(dirname "$0")/.." && find native -name '*.c' -not -path 'native/addon/*' -not -path 'native/mpi/*' -not -path 'native/cuda/*' -not -path 'native/otf2/*' -not -path 'native/otf2-read/*' | LC_ALL=C sort

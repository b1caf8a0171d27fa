#!/bin/sh
# Runs at `npm install` after node-gyp-build. A build from source has built hyprof.mod already
# (binding.gyp). With the prebuilt binaries it is built here, beside the prebuilt libhyprof.so: a
# .mod file is read only by the compiler that wrote it, so it is never shipped prebuilt.
# Without a Fortran compiler, build-fortran.sh says so and nothing is built.
set -eu
cd "$(dirname "$0")/.."
[ -f build/Release/libhyprof.so ] && exit 0
dir="prebuilds/$(node -p 'process.platform + "-" + process.arch')"
[ -f "$dir/libhyprof.so" ] || exit 0
sh scripts/build-fortran.sh "$dir"
rm -f "$dir/hyprof_mod.stamp"

#!/bin/sh
# Builds the prebuilt binaries npm ships in prebuilds/<platform>-<arch>/: the Node addon (N-API, so
# one binary serves Node 20 and later) and libhyprof.so beside it (prebuildify copies the shared
# libraries of build/Release). Used at install by node-gyp-build; where none fits, npm builds from
# source (docs/install.md).
# Built in a copy of the sources, so the checkout's own build/ is left as it is, and built for any
# machine of the platform: without PAPI (HYPROF_PAPI=0: no libpapi needed at run time), without
# the MPI layer, which must be compiled against the user's own MPI (scripts/install-mpi.sh does at
# install), and without the CUDA layer, which links the CUDA toolkit's CUPTI (built from source where
# CUDA is installed: docs/gpu.md). What the binaries need at run time: glibc and libunwind (Debian/Ubuntu: libunwind8).
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/hyprof-prebuild.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -R "$root/binding.gyp" "$root/package.json" "$root/native" "$root/scripts" "$work/"
ln -s "$root/node_modules" "$work/node_modules"
cd "$work"
# Node's headers as npm would find them for node-gyp (the nodedir setting), else node-gyp fetches them.
nodedir="${npm_config_nodedir:-$(npm config get nodedir 2>/dev/null || true)}"
case "$nodedir" in ""|undefined|null) ;; *) export npm_config_nodedir="$nodedir" ;; esac
# N-API: built against the running Node's headers, loadable by it and every later Node.
# HYPROF_V8=0: no V8 part (V8's C++ interface is not ABI-stable: docs/install.md).
HYPROF_PAPI=0 HYPROF_V8=0 MPICC=hyprof-prebuilds-have-no-mpi-layer CUDA_HOME=/hyprof-prebuilds-have-no-cuda-layer JOBS="${JOBS:-2}" \
  "$root/node_modules/.bin/prebuildify" --napi --strip --target "$(node -p process.versions.node)"
rm -rf "$root/prebuilds"
cp -R prebuilds "$root/prebuilds"
ls -l "$root"/prebuilds/*

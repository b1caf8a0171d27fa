#!/bin/sh
# Builds the Fortran module file hyprof.mod (from native/include/hyprof.f90) into <dir>/fortran, the
# directory `hyprof config --fflags` puts on the include path. The module holds only BIND(C)
# interfaces to functions of libhyprof.so, so the .mod is all a program needs from it (no object
# file to link). A .mod file is read only by the compiler family and version that wrote it, so it is
# built with the Fortran compiler programs will use: $FC, else gfortran on the PATH (docs/fortran.md).
# Without a Fortran compiler nothing is built and the build goes on: Fortran is optional.
set -eu
out="$1/fortran"
stamp="$1/hyprof_mod.stamp"
fc="${FC:-gfortran}"
cd "$(dirname "$0")/.."
if ! command -v "$fc" >/dev/null 2>&1; then
  echo "hyprof: no Fortran compiler ($fc) found: the Fortran module (hyprof.mod) is not built;" \
    "TAU's Fortran API still links (docs/fortran.md)" >&2
  rm -rf "$out"
  : > "$stamp"
  exit 0
fi
mkdir -p "$out"
tmp="$out/tmp.$$"
mkdir -p "$tmp"
# The object file is empty but for the compiler's helpers of the two handle types; it is not kept.
# A compiler without Fortran 2018's assumed-length strings in BIND(C) interfaces (gfortran < 9)
# cannot read the module: said, and the build goes on without it.
if ! "$fc" -c native/include/hyprof.f90 -J "$tmp" -o "$tmp/hyprof.o"; then
  echo "hyprof: $fc could not compile native/include/hyprof.f90 (above): the Fortran module (hyprof.mod)" \
    "is not built; TAU's Fortran API still links (docs/fortran.md)" >&2
  rm -rf "$out"
  : > "$stamp"
  exit 0
fi
mv "$tmp/hyprof.mod" "$out/hyprof.mod"
rm -rf "$tmp"
: > "$stamp"

#!/bin/sh
# Builds hyprof-otf2 (native/otf2/), the program `hyprof resolve` runs to write a run's trace as an
# OTF2 archive, into the directory given, linked with the OTF2 library (Debian:
# libopen-trace-format2-dev, found through pkg-config's otf2.pc). Without the library nothing is
# built and the build goes on: tracing is optional (HYPROF_TRACE=1 then says why no archive is
# written; the profile is written as always). docs/trace.md.
set -eu
out="$1"
stamp="$out/hyprof_otf2.stamp"
cc="${CC:-cc}"
cd "$(dirname "$0")/.."
if ! pkg-config --exists otf2 2>/dev/null; then
  echo "hyprof: no OTF2 library (pkg-config otf2) found: hyprof-otf2 is not built;" \
    "HYPROF_TRACE=1 records a trace that is not converted to OTF2 (docs/trace.md)" >&2
  rm -f "$out/hyprof-otf2"
  : > "$stamp"
  exit 0
fi
mkdir -p "$out"
# shellcheck disable=SC2046
"$cc" -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter native/otf2/*.c \
  $(pkg-config --cflags otf2) -o "$out/hyprof-otf2.tmp" $(pkg-config --libs otf2)
mv "$out/hyprof-otf2.tmp" "$out/hyprof-otf2"
: > "$stamp"

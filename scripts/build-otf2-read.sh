#!/bin/sh
# Builds hyprof-otf2-read (native/otf2-read/), the OTF2 archive reader of hyprof's trace features
# (src/trace/), into the directory given, linked with the OTF2 library (Debian
# libopen-trace-format2-dev). It is a program of its own, not part of the runtime: a measured program
# never loads libotf2. Without the library nothing is built and the build goes on: `hyprof view`,
# `report --trace` and `export --format chrome` then say once that traces cannot be read and why.
set -eu
out="$1"
stamp="$out/hyprof-otf2-read.stamp"
cc="${CC:-cc}"
cd "$(dirname "$0")/.."
cflags=$(pkg-config --cflags otf2 2>/dev/null || true)
libs=$(pkg-config --libs otf2 2>/dev/null || echo -lopen-trace-format2)
if ! printf '#include <otf2/otf2.h>\nint main(void){return 0;}\n' | "$cc" $cflags -x c - -o /dev/null $libs 2>/dev/null; then
  echo "hyprof: the OTF2 library (libopen-trace-format2-dev) is not installed: hyprof-otf2-read is not" \
    "built; traces (OTF2) cannot be read by view, report --trace and export --format chrome (docs/trace-readers.md)" >&2
  rm -f "$out/hyprof-otf2-read"
  : > "$stamp"
  exit 0
fi
"$cc" -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter $cflags native/otf2-read/otf2_read.c \
  -o "$out/hyprof-otf2-read.tmp" $libs
mv "$out/hyprof-otf2-read.tmp" "$out/hyprof-otf2-read"
: > "$stamp"

#!/bin/sh
# Builds the CUDA layer, libhyprof_cuda.so (native/cuda/), next to libhyprof.so in the directory given,
# against CUPTI's headers and library in $CUDA_HOME (default /usr/local/cuda). The CUDA driver loads it
# into a CUDA program through CUDA_INJECTION64_PATH, which `hyprof run` sets (docs/gpu.md).
# Without CUDA nothing is built and the build goes on: CUDA is optional for measuring.
set -eu
out="$1"
stamp="$out/libhyprof_cuda.stamp"
cuda="${CUDA_HOME:-/usr/local/cuda}"
cc="${CC:-cc}"
cd "$(dirname "$0")/.."
if [ ! -f "$cuda/include/cupti.h" ] || [ ! -e "$cuda/lib64/libcupti.so" ]; then
  echo "hyprof: no CUDA with CUPTI in $cuda: the CUDA layer (libhyprof_cuda.so) is not built;" \
    "CUDA programs are measured without their GPU activity (docs/gpu.md)" >&2
  rm -f "$out/libhyprof_cuda.so"
  : > "$stamp"
  exit 0
fi
objs="$out/obj.cuda"
mkdir -p "$objs"
for src in native/cuda/*.c; do
  "$cc" -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter \
    -Inative/include -Inative -I"$cuda/include" -c "$src" -o "$objs/$(basename "$src" .c).o"
done
"$cc" -shared -o "$out/libhyprof_cuda.so.tmp" "$objs"/*.o -L"$out" -lhyprof -L"$cuda/lib64" -lcupti \
  -Wl,-soname,libhyprof_cuda.so -Wl,-rpath,'$ORIGIN' -Wl,-rpath,"$cuda/lib64" -Wl,-z,nodelete
mv "$out/libhyprof_cuda.so.tmp" "$out/libhyprof_cuda.so"
: > "$stamp"

#!/bin/sh
# The GPU check of the CUDA layer (docs/gpu.md), run on a machine with an NVIDIA GPU, its driver and
# CUDA (nvcc, CUPTI), over a copy of the working tree; results go to $OUT (default ./device-out):
#   build: libhyprof.so and libhyprof_cuda.so as built here (build/Release, when carried), else
#          `make -j` (the C-only build) and scripts/build-cuda.sh;
#   $OUT/events.jsonl     the program's own CUDA-event timing of every kernel, and its copies' bytes;
#   $OUT/raw/*.raw        the raw file of the same run under hyprof's CUDA layer;
#   $OUT/traced/          the raw and trace files of a run traced (HYPROF_TRACE=1);
#   $OUT/overhead.txt     the launch loop's time without and with hyprof, 3 runs each, interleaved;
#   $OUT/nvidia-smi.txt   the device.
# Then, on any machine with the package built: node scripts/device-check-verify.mjs $OUT
set -eu
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/device-out}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
mkdir -p "$out/raw"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "device-check: nvidia-smi failed (no driver?)" >&2
lib=build/Release
if [ ! -f "$lib/libhyprof.so" ]; then
  make -j BUILD=build/make > "$out/build.log" 2>&1
  lib=build/make
fi
[ -f "$lib/libhyprof_cuda.so" ] || sh scripts/build-cuda.sh "$lib"
[ -f "$lib/libhyprof_cuda.so" ] || { echo "device-check: the CUDA layer was not built" >&2; exit 1; }
lib=$(cd "$lib" && pwd)
exe="$out/gpu_phases"
"$cuda/bin/nvcc" -O2 -g -Inative/include bench/gpu/gpu_phases.cu -o "$exe" -L"$lib" -Xlinker -rpath="$lib" -lhyprof
# The measured run: CUDA-event timings and hyprof's records of the same kernels.
CUDA_INJECTION64_PATH="$lib/libhyprof_cuda.so" HYPROF_RAW_DIR="$out/raw" HYPROF_RESOLVE=0 HYPROF_SAMPLING=0 \
  "$exe" "$out/events.jsonl"
# The same program traced (HYPROF_TRACE=1): the GPU streams' lanes and the host's waits in its trace.
CUDA_INJECTION64_PATH="$lib/libhyprof_cuda.so" HYPROF_TRACE=1 HYPROF_RAW_DIR="$out/traced" HYPROF_RESOLVE=0 HYPROF_SAMPLING=0 \
  "$exe" /dev/null
# Overhead per launch: the quiet loop (no CUDA events) without and with the CUDA layer, interleaved.
: > "$out/overhead.txt"
for round in 1 2 3; do
  for mode in off on; do
    if [ "$mode" = on ]; then inj="CUDA_INJECTION64_PATH=$lib/libhyprof_cuda.so"; else inj="-u CUDA_INJECTION64_PATH"; fi
    env $inj HYPROF_RAW_DIR="$out/raw-overhead-$mode" HYPROF_RESOLVE=0 HYPROF_SAMPLING=0 \
      "$exe" /dev/stdout quiet | sed "s/^/$mode /" >> "$out/overhead.txt"
  done
done
rm -rf "$out"/raw-overhead-*
echo "device-check: done; results in $out" >&2

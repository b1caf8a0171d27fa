#!/bin/sh
# Sampling cost benchmark: handler time per sample (measured inside the handler in a bench build)
# at unwind depth 10 and 0, and the per-signal cost seen from outside (process CPU time), against the same workload
# with a no-op per-thread timer (the floor of any timer-based sampler). Prints a markdown table for
# bench/RESULTS.md. Everything is built with frame pointers so the fp unwinder row is meaningful.
# Usage: sh bench/sampling.sh [iterations] [period_us] [repeats]
set -e
cd "$(dirname "$0")/.."
ITERS=${1:-300000000}
PERIOD=${2:-1000}
REPS=${3:-3}
OUT=$(mktemp -d /tmp/hyprof-bench-sampling.XXXXXX)
SRCS=$(find native -name '*.c' -not -path 'native/addon/*' -not -path 'native/mpi/*' | sort)   # as binding.gyp
PAPI=""; [ -f /usr/include/papi.h ] && PAPI="-DHYPROF_HAVE_PAPI=1 -lpapi"
gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -DHYPROF_BENCH_HANDLER -Inative/include -Inative $SRCS bench/sampling-handler.c \
  -o "$OUT/bench" -lunwind -lunwind-x86_64 -ldl -lpthread -lrt $PAPI
export HYPROF_DIR="$OUT" HYPROF_RAW_DIR="$OUT" HYPROF_RESOLVE=0 HYPROF_PERIOD_US=$PERIOD

run() { # label, env..., mode
  label=$1; shift
  best=""
  for r in $(seq "$REPS"); do
    line=$(env "$@" "$OUT/bench" "$MODE" "$ITERS" "$PERIOD")
    echo "$label $line" >> "$OUT/all.txt"
  done
}
MODE=base run base HYPROF_SAMPLING=0
MODE=noop run noop HYPROF_SAMPLING=0
MODE=hyprof run d10 HYPROF_SAMPLING=1 HYPROF_UNWIND_DEPTH=10
MODE=hyprof run d0 HYPROF_SAMPLING=1 HYPROF_UNWIND_DEPTH=0
MODE=hyprof run nounwind HYPROF_SAMPLING=1 HYPROF_UNWIND=0
MODE=hyprof run fp10 HYPROF_SAMPLING=1 HYPROF_UNWINDER=fp HYPROF_UNWIND_DEPTH=10

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "workload: $ITERS iterations 30 calls below the timer's frame; period $PERIOD us; $REPS runs each:"
echo "CPU time = process user+system CPU seconds over the workload, fastest run, handler ns = median of the medians; load average at start: $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| configuration | CPU time s (min) | signals | handler median ns | handler p90 ns | cost per signal vs base (us) |"
echo "|---|---|---|---|---|---|"
awk '
  { key=$1; t[key]=t[key] " " $3; s[key]=$4; m[key]=m[key] " " $5; p[key]=p[key] " " $6; order[key]=NR }
  function mn(str,   a, n, i, b) { n=split(str, a, " "); b=a[1]; for (i=2;i<=n;i++) if (a[i]+0<b+0) b=a[i]; return b }
  function med(str,   a, n, i, j, x) { n=split(str, a, " "); for (i=1;i<=n;i++) for (j=i+1;j<=n;j++) if (a[j]+0<a[i]+0) { x=a[i]; a[i]=a[j]; a[j]=x }; return a[int((n+1)/2)] }
  END {
    base=mn(t["base"]);
    split("base noop d10 d0 nounwind fp10", ks, " ");
    names["base"]="workload alone"; names["noop"]="no-op timer handler (floor)";
    names["d10"]="hyprof, libunwind, depth 10"; names["d0"]="hyprof, libunwind, depth 0 (to the timer frame, 31 frames)";
    names["nounwind"]="hyprof, no unwinding (PC only)"; names["fp10"]="hyprof, frame pointers, depth 10";
    for (i=1;i<=6;i++) { k=ks[i]; tt=mn(t[k]);
      cost = (k=="base" || s[k]==0) ? "-" : sprintf("%.1f", (tt-base)*1e6/s[k]);
      printf("| %s | %.3f | %s | %s | %s | %s |\n", names[k], tt, s[k], k ~ /base|noop/ ? "-" : med(m[k]), k ~ /base|noop/ ? "-" : med(p[k]), cost) }
  }' "$OUT/all.txt"
rm -rf "$OUT"

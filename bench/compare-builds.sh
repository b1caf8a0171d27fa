#!/bin/sh
# Two builds of the runtime side by side: the native sources at a git revision (default main) against
# those of the working tree, compiled the same way, measured in one run with the two interleaved
# round by round. For a change that must not make the hot paths slower:
#   - probe pair (start + stop, 1 thread, every way bench/probe-cost.c writes it) in the loop thread's
#     CPU time, next to the clock floors (two clock reads) of the same round, against each
#     libhyprof.so;
#   - the sampling handler's own time per signal (median over the run), unwinding to depth 10 and to
#     the timer's frame (depth 0): bench/sampling-handler.c on each runtime built to time its handler;
#   - instructions per probe pair and per sample under callgrind (independent of the machine's load).
# Prints min and median over the rounds. Usage: sh bench/compare-builds.sh [rev] [rounds] [pairs]
set -e
cd "$(dirname "$0")/.."
REV=${1:-main}
ROUNDS=${2:-7}
PAIRS=${3:-5000000}
ITERS=100000000
OUT=$(mktemp -d /tmp/hyprof-bench-ab.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
PAPI=""; [ -f /usr/include/papi.h ] && PAPI="-DHYPROF_HAVE_PAPI=1 -lpapi"
LIBS="-lunwind -lunwind-x86_64 -ldl -lpthread -lrt $PAPI"

mkdir -p "$OUT/A" "$OUT/B"
git archive "$REV" native | tar -x -C "$OUT/A"
cp -r native "$OUT/B/"
for v in A B; do
  d="$OUT/$v"
  # every C source of the runtime (core, modules, their list), as binding.gyp builds it
  srcs=$(find "$d/native" -name '*.c' -not -path '*/addon/*' -not -path '*/mpi/*' -not -path '*/cuda/*' -not -path '*/otf2/*' | sort)
  gcc -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -I"$d/native/include" -I"$d/native" $srcs \
    -o "$d/libhyprof.so" -Wl,-soname,libhyprof.so -Wl,-z,nodelete $LIBS
  gcc -O2 -g -falign-functions=64 -falign-loops=64 -I"$d/native/include" bench/probe-cost.c -o "$d/probe-cost" \
    -L"$d" -Wl,-rpath,"$d" -lhyprof -lpthread
  # the handler-timing build of the runtime as a library of its own: compiled into the program, a
  # runtime before the fix of native/sample/maps.c counted every sample of the program as its own
  # code and dropped it (the handler then returned at once)
  mkdir -p "$d/timed"
  gcc -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -fno-omit-frame-pointer -DHYPROF_BENCH_HANDLER \
    -I"$d/native/include" -I"$d/native" $srcs -o "$d/timed/libhyprof.so" -Wl,-soname,libhyprof.so $LIBS
  gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -I"$d/native/include" bench/sampling-handler.c -o "$d/sampling" \
    -L"$d/timed" -Wl,-rpath,"$d/timed" -lhyprof -lpthread -lrt
done
# Every pair measured: the loops run millions of tiny timers, which throttling (on by default since it
# exists; builds without it ignore the variable) would stop measuring after 100,000 calls.
export HYPROF_DIR="$OUT" HYPROF_RAW_DIR="$OUT" HYPROF_RESOLVE=0 HYPROF_PERIOD_US=1000 HYPROF_THROTTLE=0

for r in $(seq "$ROUNDS"); do
  # alternate which build goes first
  if [ $((r % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
  for v in $order; do
    # probe-cost prints "<case> <threads> <cpu ns> <wall ns>"
    "$OUT/$v/probe-cost" "$PAIRS" "$r" | awk -v v="$v" '$2 == 1 { print v, "cpu_" $1, $3 }' >> "$OUT/all.txt"
    for depth in 10 0; do
      # sampling-handler prints "<mode> <cpu s> <wall s> <signals> <median ns> <p90 ns>"
      HYPROF_SAMPLING=1 HYPROF_UNWIND_DEPTH=$depth "$OUT/$v/sampling" hyprof "$ITERS" 1000 |
        awk -v v="$v" -v d="$depth" '{ print v, "handler_d" d, $5 }' >> "$OUT/all.txt"
    done
    # deep stacks: 200 calls between the timer and the work, unwound completely (a build capped at
    # 128 frames stops there)
    HYPROF_SAMPLING=1 HYPROF_UNWIND_DEPTH=0 "$OUT/$v/sampling" hyprof "$ITERS" 1000 200 |
      awk -v v="$v" '{ print v, "handler_d0_deep", $5 }' >> "$OUT/all.txt"
  done
done

# instructions per pair: everything executed inside the loop functions (three loop threads, one
# alone and two together, each running its loop twice: a warm-up, then the timed run), divided by
# the pairs they ran
CG_PAIRS=200000
for v in A B; do
  for fn in loop_empty loop_clock_gettime loop_handle loop_named_literal loop_named_dynamic loop_tau_start; do
    valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$v.$fn" --toggle-collect="$fn" \
      "$OUT/$v/probe-cost" "$CG_PAIRS" 0 > /dev/null 2> "$OUT/cg.log"
    ir=$(awk '/^totals:/ { t = $2 } /^summary:/ { s = $2 } END { print (t != "" ? t : s) }' "$OUT/cg.$v.$fn")
    echo "$v ir_$fn $(awk -v ir="$ir" -v p="$CG_PAIRS" 'BEGIN { printf "%.1f", ir / (6 * p) }')" >> "$OUT/all.txt"
  done
  # per sample: everything inside hp_sample_take (the handler's work once the signal is known to be
  # ours: unwinding, the state hook, the table), divided by the samples the run recorded
  for depth in 10 0; do
    n=$(HYPROF_SAMPLING=1 HYPROF_UNWIND_DEPTH=$depth valgrind --tool=callgrind --callgrind-out-file="$OUT/cgs.$v.$depth" \
      --toggle-collect=hp_sample_take "$OUT/$v/sampling" hyprof 20000000 1000 2> "$OUT/cg.log" | awk '{ print $4 }')
    ir=$(awk '/^totals:/ { t = $2 } /^summary:/ { s = $2 } END { print (t != "" ? t : s) }' "$OUT/cgs.$v.$depth")
    echo "$v ir_sample_d$depth $(awk -v ir="$ir" -v n="$n" 'BEGIN { printf "%.0f", n ? ir / n : 0 }')" >> "$OUT/all.txt"
  done
done

echo "A = native/ at $REV ($(git rev-parse --short "$REV")), B = the working tree; $ROUNDS rounds interleaved;"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| measure | A min | A median | B min | B median |"
echo "|---|---|---|---|---|"
awk '
  { key=$2; v[$1 "|" key]=v[$1 "|" key] " " $3; if (!(key in seen)) { seen[key]=1; keys[++n]=key } }
  function sorted(str, a,   k, i, j, x) { k=split(str, a, " "); for (i=1;i<=k;i++) for (j=i+1;j<=k;j++) if (a[j]+0<a[i]+0) { x=a[i]; a[i]=a[j]; a[j]=x }; return k }
  function mn(str,   a, k) { k=sorted(str, a); return a[1] }
  function med(str,   a, k) { k=sorted(str, a); return k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2 }
  END {
    names["cpu_empty_loop"]="loop alone, CPU ns per iteration"
    names["cpu_clock_gettime_x2"]="clock floor (2 clock_gettime), CPU ns"
    names["cpu_rdtsc_x2"]="clock floor (2 rdtsc), CPU ns"
    names["cpu_by_handle"]="probe pair by handle, CPU ns"
    names["cpu_by_name_literal"]="probe pair by literal name, CPU ns"
    names["cpu_by_name_dynamic"]="probe pair by run-time name, CPU ns"
    names["cpu_TAU_START"]="probe pair by TAU_START/TAU_STOP, CPU ns"
    names["handler_d10"]="sampling handler, depth 10, median ns per signal"
    names["handler_d0"]="sampling handler, depth 0 (31 frames), median ns per signal"
    names["handler_d0_deep"]="sampling handler, depth 0, 201 frames (cap 128 in a build before 256), median ns per signal"
    names["ir_loop_empty"]="loop alone, instructions per iteration (callgrind)"
    names["ir_loop_clock_gettime"]="clock floor, instructions (callgrind)"
    names["ir_loop_handle"]="probe pair by handle, instructions (callgrind)"
    names["ir_loop_named_literal"]="probe pair by literal name, instructions (callgrind)"
    names["ir_loop_named_dynamic"]="probe pair by run-time name, instructions (callgrind)"
    names["ir_loop_tau_start"]="probe pair by TAU_START, instructions (callgrind)"
    names["ir_sample_d10"]="one sample at depth 10, instructions in hp_sample_take (callgrind)"
    names["ir_sample_d0"]="one sample at depth 0, instructions in hp_sample_take (callgrind)"
    for (i=1;i<=n;i++) { k=keys[i]; a=v["A|" k]; b=v["B|" k]
      printf("| %s | %s | %s | %s | %s |\n", (k in names) ? names[k] : k, mn(a), med(a), mn(b), med(b)) }
  }' "$OUT/all.txt"

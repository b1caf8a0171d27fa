#!/bin/sh
# Two builds of the CLI compared on what they write, byte for byte: the code at a git revision
# (default main) against the working tree's build (dist/, build/Release; build it first). For a change
# that must not change behaviour (a move of files, a command made thin):
#   - real programs of the test suite (probes, phases and parameters, threads with sampling, several
#     metrics, compiler instrumentation, OpenMP on libomp, an MPI job of 3 ranks) are run once under
#     `hyprof run --keep-raw` of the working tree; their raw files are resolved by both builds
#     (and the MPI job's also with --format merged), and the profile directories compared whole;
#   - on every resolved profile and every profile directory named on the command line (TAU's own,
#     e.g. reference profiles): `report` (text, --json, --callpath, --callpath --json, --thread all,
#     --mpi, --diagnose, --openmp, --functions, --functions --json, --event main), `export` in every
#     format, and `diff` of each profile against the next, each run by both builds: standard output,
#     standard error and exit status compared (an export's file too).
# Prints every difference and the counts; exits 1 when anything differs.
# Usage: sh bench/compare-outputs.sh [rev] [profile-dir ...]
set -e
cd "$(dirname "$0")/.."
ROOT=$PWD
REV=${1:-main}
[ $# -gt 0 ] && shift
OUT=$(mktemp -d /tmp/hyprof-compare.XXXXXX)
cleanup() {
  git worktree remove --force "$OUT/old-tree" 2>/dev/null || true
  rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The old build: its TypeScript compiled with this tree's packages; its native runtime is this
# tree's build when native/ is the same at both, else built there.
git worktree add --quiet --detach "$OUT/old-tree" "$REV"
ln -s "$ROOT/node_modules" "$OUT/old-tree/node_modules"
if git diff --quiet "$REV" -- native binding.gyp; then
  ln -s "$ROOT/build" "$OUT/old-tree/build"
else
  (cd "$OUT/old-tree" && npx node-gyp rebuild >/dev/null)
fi
(cd "$OUT/old-tree" && npx tsc -p .)
OLD="node $OUT/old-tree/dist/src/cli/main.js"
NEW="node $ROOT/dist/src/cli/main.js"
LIB=$ROOT/build/Release

compared=0
same=0
differ=""

# same NAME CMD...: CMD (with $HYPROF the build under test) run by both builds, in the same directory
# with the same arguments, so that paths in messages are the same; exit status, stdout and stderr
# compared, and what it wrote to $OUT/file (an export's file, a resolve's profile directory).
same() {
  what=$1
  shift
  for v in old new; do
    if [ $v = old ]; then HYPROF=$OLD; else HYPROF=$NEW; fi
    rm -rf "$OUT/file" "$OUT/$v.file"
    (cd "$OUT/work" && eval "$*") >"$OUT/$v.out" 2>"$OUT/$v.err" && echo 0 >"$OUT/$v.rc" || echo $? >"$OUT/$v.rc"
    if [ -e "$OUT/file" ]; then mv "$OUT/file" "$OUT/$v.file"; else echo none >"$OUT/$v.file"; fi
  done
  compared=$((compared + 1))
  if cmp -s "$OUT/old.out" "$OUT/new.out" && cmp -s "$OUT/old.err" "$OUT/new.err" && cmp -s "$OUT/old.rc" "$OUT/new.rc" &&
    diff -r -q "$OUT/old.file" "$OUT/new.file" >/dev/null; then
    same=$((same + 1))
    echo "same: $what"
  else
    differ="$differ\n  $what"
    echo "DIFFERS: $what" >&2
    for k in rc out err file; do diff -r "$OUT/old.$k" "$OUT/new.$k" | head -5 >&2 || true; done
  fi
}

mkdir -p "$OUT/work" "$OUT/bin" "$OUT/raw"
cc_hyprof() { gcc -O1 -g -I"$ROOT/native/include" "$@" -L"$LIB" -Wl,-rpath,"$LIB" -lhyprof -lpthread; }
cc_hyprof test/native/param_phases.c -o "$OUT/bin/param_phases"
cc_hyprof test/native/metrics_regions.c -o "$OUT/bin/metrics_regions"
cc_hyprof test/native/sample_threads.c -o "$OUT/bin/sample_threads"
cc_hyprof $($NEW config --instrument --compiler gcc) test/native/instr_app.c test/native/instr_util.c -o "$OUT/bin/instr_app"
clang -O1 -g -fopenmp -I"$ROOT/native/include" test/native/omp_constructs.c -o "$OUT/bin/omp_constructs" -L"$LIB" -Wl,-rpath,"$LIB" -lhyprof -fopenmp
mpicc -O1 -g test/native/mpi_app.c -o "$OUT/bin/mpi_app"

# run NAME ENV... -- PROGRAM ARGS...: measured once by the working tree's `hyprof run`, raw files kept
run() {
  prog=$1
  shift
  envs=""
  while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
  shift
  env $envs $NEW run --keep-raw --dir "$OUT/run/$prog" -- "$@" >/dev/null 2>"$OUT/run-$prog.err"
  raw=$(sed -n 's/^hyprof: raw measurements kept in //p' "$OUT/run-$prog.err")
  [ -d "$raw" ] || { echo "no raw files from $prog:" >&2; cat "$OUT/run-$prog.err" >&2; exit 1; }
  mv "$raw" "$OUT/raw/$prog"
}
run param_phases HYPROF_SAMPLING=0 -- "$OUT/bin/param_phases" 3
run metrics_regions HYPROF_METRICS=TIME:CPU_TIME -- "$OUT/bin/metrics_regions"
run sample_threads HYPROF_PERIOD_US=2000 -- "$OUT/bin/sample_threads"
run instr_app -- "$OUT/bin/instr_app"
run omp_constructs OMP_NUM_THREADS=2 -- "$OUT/bin/omp_constructs"
run mpi_app -- mpirun --oversubscribe --allow-run-as-root --mca btl self,vader -np 3 "$OUT/bin/mpi_app" exchange

profiles=""
mkdir -p "$OUT/prof"
for name in $(ls "$OUT/raw"); do
  same "resolve $name" "\$HYPROF resolve $OUT/raw/$name -o $OUT/file"
  mv "$OUT/new.file" "$OUT/prof/$name"
  profiles="$profiles $OUT/prof/$name"
done
same "resolve --format merged mpi_app" "\$HYPROF resolve --format merged $OUT/raw/mpi_app -o $OUT/file"
mv "$OUT/new.file" "$OUT/prof/mpi_app_merged"
profiles="$profiles $OUT/prof/mpi_app_merged"
for p in "$@"; do profiles="$profiles $(cd "$p" && pwd)"; done

prev=""
for p in $profiles; do
  for opts in "" "--json" "--callpath" "--callpath --json" "--thread all" "--mpi" "--diagnose" "--openmp" "--functions" "--functions --json" "--event main"; do
    same "report $opts $p" "\$HYPROF report $opts $p"
  done
  for f in collapsed speedscope pprof; do
    same "export --format $f $p" "\$HYPROF export --format $f -o $OUT/file $p"
  done
  if [ -n "$prev" ]; then
    same "diff $prev $p" "\$HYPROF diff $prev $p"
    same "diff --json $prev $p" "\$HYPROF diff --json $prev $p"
  fi
  prev=$p
done

echo "compared $compared outputs of $REV and the working tree: $same identical, $((compared - same)) different"
if [ "$same" -ne "$compared" ]; then
  printf "different:$differ\n"
  exit 1
fi

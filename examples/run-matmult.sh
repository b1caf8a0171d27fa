#!/usr/bin/env bash
# The main example: build examples/matmult.c against hyprof, run it under `hyprof run` (probes and
# sampling: a hybrid profile), and print the report. The profile is left in examples/out/profile.
set -euo pipefail
cd "$(dirname "$0")/.."
out=examples/out/profile
mkdir -p examples/out
rm -rf "$out"
# shellcheck disable=SC2046
cc -O2 -g $(node dist/src/cli/main.js config --cflags) examples/matmult.c \
  $(node dist/src/cli/main.js config --libs) -o examples/out/matmult
node dist/src/cli/main.js run --dir "$out" -- examples/out/matmult
node dist/src/cli/main.js report "$out" --limit 15

#!/bin/sh
# Exit 0 when npm runs a lifecycle script of this checkout only because of `npx hyprof` (or
# `npm exec hyprof`) typed in the checkout itself; then install.sh and prepare.sh leave the build
# as it is. npm 11 resolves `npx hyprof` in the package's own directory to the package itself,
# links it into its npx cache and runs its install scripts in place, with npm_command=exec; an
# install a user asked for (npm ci, npm install, npm rebuild) has another npm_command.
# Without a build there is nothing to keep: say what to run instead (exit 0: npx must not build).
[ "${npm_command:-}" = exec ] || exit 1
if [ ! -f dist/src/cli/main.js ] || [ ! -f build/Release/libhyprof.so ]; then
  echo "hyprof: this checkout is not built; run npm ci here first (npx does not build it)" >&2
fi
exit 0

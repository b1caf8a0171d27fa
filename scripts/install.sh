#!/bin/sh
# The package's install script (npm runs it at `npm install` / `npm ci`).
# In a git checkout of the sources the native parts are always rebuilt, as a developer expects of
# `npm ci` after changing them: node-gyp-build would keep any build/ it can load, however stale.
# Installed from the package, node-gyp-build uses the prebuilt binaries where they load and builds
# from source where they do not (docs/install.md); then the MPI layer is built for the user's MPI.
set -eu
cd "$(dirname "$0")/.."
if [ -e .git ]; then
  # `npx hyprof` in the checkout itself: npm installs the checkout into its npx cache as a link
  # and runs this script here, in place (npm_command=exec). The build is the developer's (npm ci):
  # rebuilding would first delete build/Release under every program linked against it.
  if sh scripts/npx-in-checkout.sh; then exit 0; fi
  exec node-gyp rebuild
fi
node-gyp-build
sh scripts/install-mpi.sh
sh scripts/install-fortran.sh

#!/usr/bin/env bash
# Builds the single executable `hyprof` (Node's single executable applications): the CLI bundled by
# esbuild into one CommonJS file, the viewer's page (dist/web) and the version as assets, all put
# into a copy of the running node binary with postject. The result runs resolve, report, view and
# export on a machine without Node (docs/install.md).
#   bash scripts/build-sea.sh [OUT_DIR]      # default build/sea; needs `npm run build:web` first
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${1:-$root/build/sea}" && cd "${1:-$root/build/sea}" && pwd)"
cd "$root"
if [ ! -f dist/web/index.html ]; then
  echo "build-sea: dist/web/index.html is missing: run 'npm run build:web' first" >&2
  exit 1
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/hyprof-sea.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# One CommonJS file (the form a single executable runs). The sources locate their package's files
# from import.meta.url, which CommonJS has not: it becomes the bundle's own file URL, and what they
# looked for there comes from the assets (src/base/single-executable.ts). protobufjs stays out:
# @datadog/sketches-js (the viewer's quartiles) requires it only to serialise a sketch, which hyprof
# never does, and does not depend on it.
node_modules/.bin/esbuild src/cli/sea-main.ts --bundle --platform=node --target=node20 --format=cjs \
  --outfile="$work/hyprof.cjs" --log-level=warning --legal-comments=none --external:protobufjs/minimal \
  --define:import.meta.url=__hyprof_bundle_url \
  --banner:js="const __hyprof_bundle_url = require('node:url').pathToFileURL(typeof __filename === 'string' ? __filename : process.execPath).href;"

(cd dist/web && find . -type f | sed 's|^\./||' | LC_ALL=C sort) > "$work/web-files.txt"
node -p 'require("./package.json").version' | tr -d '\n' > "$work/version"
WORK="$work" node -e '
  const { readFileSync, writeFileSync } = require("node:fs");
  const work = process.env.WORK;
  const files = readFileSync(`${work}/web-files.txt`, "utf8").split("\n").filter(Boolean);
  writeFileSync(`${work}/web-files.json`, JSON.stringify(files));
  const assets = { version: `${work}/version`, "web-files.json": `${work}/web-files.json` };
  for (const f of files) assets[`web/${f}`] = `dist/web/${f}`;
  writeFileSync(`${work}/sea-config.json`, JSON.stringify({
    main: `${work}/hyprof.cjs`, output: `${work}/hyprof.blob`,
    disableExperimentalSEAWarning: true, useCodeCache: true, assets,
  }));
'
node --experimental-sea-config "$work/sea-config.json"
cp "$(node -p process.execPath)" "$work/hyprof"
chmod u+w "$work/hyprof"
node_modules/.bin/postject "$work/hyprof" NODE_SEA_BLOB "$work/hyprof.blob" \
  --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 >"$work/postject.log" 2>&1 \
  || { cat "$work/postject.log" >&2; exit 1; }
# (postject warns about ELF note names it cannot read; harmless, so its output shows only on failure)
mv "$work/hyprof" "$out/hyprof"
echo "build-sea: $out/hyprof ($(du -m "$out/hyprof" | cut -f1) MB)"

#!/bin/sh
# The package's prepare script (npm runs it after `npm ci` / `npm install` in the checkout, and
# before `npm pack`): the TypeScript and the viewer page. Not under `npx hyprof` typed in the
# checkout (scripts/npx-in-checkout.sh): npm would rewrite dist/ while the CLI it runs next reads it.
set -eu
cd "$(dirname "$0")/.."
if sh scripts/npx-in-checkout.sh; then exit 0; fi
npm run build:ts
npm run build:web

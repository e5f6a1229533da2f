#!/usr/bin/env bash
# Installs the Deno and Bun runtimes from npm into .runtimes/ (ignored by git) for `npm run test:runtimes`.
# They are large (~200 MB together), so they stay out of the project's own dependencies. Idempotent: a
# second run with the pinned versions already in place does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

DENO_VERSION=2.9.6
BUN_VERSION=1.4.5
PREFIX=.runtimes

installed_version() {
  "$PREFIX/node_modules/.bin/$1" --version 2>/dev/null | head -n 1 || true
}

if [[ "$(installed_version deno)" == "deno $DENO_VERSION"* && "$(installed_version bun)" == "$BUN_VERSION" ]]; then
  echo "deno $DENO_VERSION and bun $BUN_VERSION are already in $PREFIX/"
  exit 0
fi

mkdir -p "$PREFIX"
# Its own package.json, so `npm install --prefix` neither touches nor reads the project's dependencies.
# bun's install script links the platform binary; npm 11 runs it only when allowed.
cat >"$PREFIX/package.json" <<JSON
{
  "name": "svc-extra-runtimes",
  "private": true,
  "description": "Deno and Bun for npm run test:runtimes (written by scripts/install-runtimes.sh)",
  "dependencies": { "deno": "$DENO_VERSION", "bun": "$BUN_VERSION" },
  "allowScripts": { "bun": true, "deno": true }
}
JSON
npm install --prefix "$PREFIX" --no-audit --no-fund --save-exact --no-package-lock
echo "installed: $(installed_version deno), bun $(installed_version bun)"

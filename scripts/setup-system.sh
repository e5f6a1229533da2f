#!/usr/bin/env bash
# Installs the system programs the tests use (beyond Node and npm), from Debian's packages.
# Safe to run again: it installs only what is missing. Needs root (or sudo) and apt-get.
set -euo pipefail

needed=()
command -v git >/dev/null 2>&1 || needed+=(git)
command -v curl >/dev/null 2>&1 || needed+=(curl)
command -v openssl >/dev/null 2>&1 || needed+=(openssl)
# The browser test of the identity provider (test/idp/browser.test.ts) drives it with playwright-core.
command -v chromium >/dev/null 2>&1 || needed+=(chromium)
# The scale-out tests (test/cluster/) and `npm run bench`'s three-instance run start their own Redis.
command -v redis-server >/dev/null 2>&1 || needed+=(redis-server)
# The case-insensitive view of a data directory (test/support/casefold_fs.py, used by test/storage/) is a FUSE
# passthrough: Debian's python3 with fusepy (Debian's module name) loads libfuse2; fuse3 brings the fusermount3 helper.
/usr/bin/python3 -c 'import fusepy' >/dev/null 2>&1 || needed+=(python3 python3-fusepy libfuse2)
command -v fusermount3 >/dev/null 2>&1 || needed+=(fuse3)

if [ ${#needed[@]} -eq 0 ]; then
  echo "setup-system: everything needed is present"
  exit 0
fi

echo "setup-system: installing ${needed[*]}"
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${needed[@]}"

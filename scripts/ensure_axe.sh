#!/usr/bin/env bash
# The accessibility scan in tests/browser/test_layout.py injects axe-core into the page. Fetch the
# pinned release from the npm registry once (npm pack: no node_modules, no install scripts).
set -euo pipefail
VERSION="${AXE_CORE_VERSION:-4.14.1}"
DEST="$(dirname "$0")/../.test-artifacts/axe-core-$VERSION"
if [ -f "$DEST/axe.min.js" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then  # npm itself comes from Debian, like chromium
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
fi
mkdir -p "$DEST"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent "axe-core@$VERSION" >/dev/null)
tar -xzf "$TMP"/axe-core-*.tgz -C "$TMP"
cp "$TMP/package/axe.min.js" "$TMP/package/LICENSE" "$DEST/"

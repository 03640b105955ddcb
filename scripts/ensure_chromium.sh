#!/usr/bin/env bash
# The browser tests drive Debian's Chromium through Playwright (Playwright's own browser
# download cannot work offline). Install it when missing; root is the norm on these machines.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-wqy-microhei fonts-noto-color-emoji >/dev/null

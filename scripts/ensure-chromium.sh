#!/usr/bin/env bash
# The report's browser test drives Debian's Chromium (no browser downloads are possible here).
# Installs it when missing and this user can (root with apt-get); otherwise says how.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
[ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the report's browser test ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null
else
  echo "note: the report's browser test needs Chromium: apt-get install -y chromium (or set CHROMIUM_PATH)" >&2
fi

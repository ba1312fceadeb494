#!/usr/bin/env bash
# Debian packages the tests drive (no downloads but the npm registry and Debian are possible
# here): Chromium for the report's browser test, PostgreSQL's and MariaDB's server binaries for
# the SQL recipes' tests against real databases, Redis for server-redis's, bubblewrap for
# --sandbox's. Installs what is
# missing when this user can (root with apt-get); otherwise says how.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || { [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; } || missing+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
{ command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; } && command -v mariadb-install-db >/dev/null 2>&1 || missing+=(mariadb-server)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's ${missing[*]} for the tests ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "note: the tests need Debian's ${missing[*]}: apt-get install -y ${missing[*]} (Chromium: or set CHROMIUM_PATH)" >&2
fi

#!/usr/bin/env bash
# The SQL recipes' test against the real @modelcontextprotocol/server-postgres starts a throwaway
# PostgreSQL cluster from Debian's server binaries. Installs them when missing and this user can
# (root with apt-get); otherwise says how.
set -euo pipefail
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's postgresql for the SQL recipes' test ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null
else
  echo "note: the SQL recipes' Postgres test needs PostgreSQL's server binaries: apt-get install -y postgresql" >&2
fi

#!/bin/sh
# with_postgres.sh — runs a command beside a PostgreSQL server of its own:
# a cluster made with initdb in a temporary folder, listening only on a unix
# socket in that folder, stopped and removed when the command ends. The
# command finds it in WK_TEST_PG_URL (a database "worldkit", user
# "worldkit") and the cluster's folder in WK_TEST_PG_DIR. PostgreSQL refuses
# to run as root: as root the server runs as the system user postgres
# (Debian's postgresql-common makes it). Exits 77 (a skip for CTest) only
# when PostgreSQL 15's programs are not installed.
set -eu
bin=/usr/lib/postgresql/15/bin
if [ ! -x "$bin/initdb" ]; then
  echo "with_postgres: $bin/initdb missing (apt-get install postgresql-15): skipped" >&2
  exit 77
fi
dir=$(mktemp -d /tmp/wk_pg_XXXXXX)
as_server=""
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$dir"
  as_server="runuser -u postgres --"
fi
chmod 755 "$dir"
stop() {
  $as_server "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT INT TERM
$as_server "$bin/initdb" -D "$dir/data" -U worldkit -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 1; }
$as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=200" start >/dev/null ||
  { cat "$dir/server.log" >&2; exit 1; }
"$bin/createdb" -h "$dir" -U worldkit worldkit
export WK_TEST_PG_URL="postgresql:///worldkit?host=$dir&user=worldkit"
export WK_TEST_PG_DIR="$dir"
"$@"

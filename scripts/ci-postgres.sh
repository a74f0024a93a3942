#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages and starts a cluster of its own on a loopback port
# (PostgreSQL refuses to run as root, so the cluster belongs to the postgres user and is started
# with pg_ctlcluster). Prints the URL of a database and role for the tests on stdout.
# Idempotent: an existing cluster "lanes" is reused.
set -euo pipefail
PORT="${LANES_CI_PG_PORT:-54329}"
PASSWORD="${LANES_CI_PG_PASSWORD:-lanes-pw-7Qx}"

if ! command -v pg_createcluster >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
VERSION="$(ls /usr/lib/postgresql | sort -n | tail -1)"
if ! pg_lsclusters -h | awk '{print $2}' | grep -qx lanes; then
  pg_createcluster "$VERSION" lanes -p "$PORT" -- --auth-local=peer --auth-host=scram-sha-256 >&2
fi
pg_ctlcluster "$VERSION" lanes start >&2 || pg_ctlcluster "$VERSION" lanes status >&2
for _ in $(seq 50); do
  su postgres -c "pg_isready -q -h 127.0.0.1 -p $PORT" && break
  sleep 0.2
done
su postgres -c "psql -q -p $PORT -v ON_ERROR_STOP=1" >&2 <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lanes') THEN CREATE ROLE lanes LOGIN CREATEDB; END IF;
END \$\$;
ALTER ROLE lanes PASSWORD '$PASSWORD';
SQL
su postgres -c "psql -p $PORT -tAc \"SELECT 1 FROM pg_database WHERE datname = 'lanes_test'\"" | grep -q 1 \
  || su postgres -c "createdb -p $PORT -O lanes lanes_test" >&2
echo "postgres://lanes:${PASSWORD}@127.0.0.1:${PORT}/lanes_test"

#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages and starts a cluster of its own on a loopback port
# (PostgreSQL refuses to run as root, so the cluster belongs to the postgres user and is started
# with pg_ctlcluster), and PgBouncer in transaction mode in front of it. Prints two lines on
# stdout: the server's URL and PgBouncer's URL, for a database and role of the tests.
# Idempotent: an existing cluster "lanes" and a running PgBouncer are reused.
set -euo pipefail
# pgbouncer and the cluster tools live in sbin, which a non-login shell's PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"
PORT="${LANES_CI_PG_PORT:-54329}"
PASSWORD="${LANES_CI_PG_PASSWORD:-lanes-pw-7Qx}"

BOUNCER_PORT="${LANES_CI_PGBOUNCER_PORT:-64329}"
if ! command -v pg_createcluster >/dev/null || ! command -v pgbouncer >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql pgbouncer >&2
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

# PgBouncer, transaction pooling (it refuses to run as root, so as postgres too).
DIR=/var/lib/postgresql/lanes-pgbouncer
mkdir -p "$DIR"
cat > "$DIR/pgbouncer.ini" <<INI
[databases]
lanes_test = host=127.0.0.1 port=$PORT dbname=lanes_test

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
auth_type = scram-sha-256
auth_file = $DIR/userlist.txt
pool_mode = transaction
max_client_conn = 400
default_pool_size = 20
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
unix_socket_dir =
INI
# lanes names the statements it runs often (store/postgres/conn.ts). PgBouncer tracks named
# statements across the server connections of transaction pooling from 1.21 on, when told to; an
# older one passes the names through and lanes, seeing a name missing or taken, runs the rest
# unnamed (tested through this PgBouncer: the store contract suite).
BOUNCER_VERSION="$(pgbouncer --version | awk 'NR == 1 {print $NF}')"
if printf '1.21.0\n%s\n' "$BOUNCER_VERSION" | sort -V -C; then
  echo 'max_prepared_statements = 100' >> "$DIR/pgbouncer.ini"
fi
printf '"lanes" "%s"\n' "$PASSWORD" > "$DIR/userlist.txt"
chown -R postgres "$DIR"
chmod 600 "$DIR/userlist.txt"
if ! (su postgres -c "pg_isready -q -h 127.0.0.1 -p $BOUNCER_PORT" >/dev/null 2>&1); then
  su postgres -c "pgbouncer -d $DIR/pgbouncer.ini" >&2
  for _ in $(seq 50); do
    su postgres -c "pg_isready -q -h 127.0.0.1 -p $BOUNCER_PORT" && break
    sleep 0.2
  done
fi
echo "postgres://lanes:${PASSWORD}@127.0.0.1:${BOUNCER_PORT}/lanes_test"

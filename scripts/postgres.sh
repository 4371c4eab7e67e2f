#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on 127.0.0.1 and a free port, in a temp dir.
#
# Sourced by scripts/test.sh, it defines two functions:
#   postgres_start  installs Debian's postgresql if its binaries are missing (apt, waiting for
#                   another package manager's lock like install-chromium.sh), starts a cluster
#                   and exports DEEPBOT_TEST_POSTGRES=postgresql://postgres@127.0.0.1:PORT/postgres
#                   and DEEPBOT_TEST_POSTGRES_DATA (its data directory: the restart test uses it).
#                   A DEEPBOT_TEST_POSTGRES already set outside CI is used as it is.
#                   Outside CI a cluster that cannot be had is a warning (the tests that need it
#                   are then skipped, saying why); in CI it is an error.
#   postgres_stop   stops the cluster and removes its directory (test.sh traps EXIT with it).
# Run directly, it starts a cluster, prints the two exports and leaves it running:
#   eval "$(bash scripts/postgres.sh)"   ...   bash scripts/postgres.sh stop "$DEEPBOT_TEST_POSTGRES_DATA"
#
# initdb refuses to run as root, so as root the server runs as the `postgres` user that the
# Debian package creates. The cluster trusts every local connection: it holds test data only,
# listens on loopback only, and is deleted at exit.
set -euo pipefail

_PG_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

_pg_bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
    done
    return 1
}

# As root, commands run as `postgres`; otherwise as ourselves.
_pg_as() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

_pg_install() {
    if _pg_bindir >/dev/null; then return 0; fi
    if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
        echo "postgres.sh: no PostgreSQL binaries and no root to install them" >&2
        return 1
    fi
    # apt_get, with its wait for the apt/dpkg lock: one copy, in install-chromium.sh.
    # shellcheck source=install-chromium.sh
    source "$_PG_HERE/install-chromium.sh"
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends postgresql >/dev/null
    _pg_bindir >/dev/null
}

_pg_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts a cluster; prints "URL DATA_DIR".
_pg_cluster() {
    local bin dir port
    bin="$(_pg_bindir)"
    dir="$(mktemp -d /tmp/deepbot-pg.XXXXXX)"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    port="$(_pg_free_port)"
    _pg_as "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; return 1; }
    # In the cluster's own configuration, so that a plain `pg_ctl start` (the restart test)
    # brings it back the same. fsync off: a throwaway cluster, faster tests; the socket in our
    # own directory, so two clusters on one machine never meet in /var/run/postgresql.
    printf '%s\n' "listen_addresses = '127.0.0.1'" "port = $port" "unix_socket_directories = '$dir'" \
        "fsync = off" "full_page_writes = off" "max_connections = 200" \
        | _pg_as tee -a "$dir/data/postgresql.conf" >/dev/null
    _pg_as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
        || { cat "$dir/server.log" >&2; return 1; }
    echo "postgresql://postgres@127.0.0.1:$port/postgres $dir"
}

postgres_start() {
    if [ -n "${DEEPBOT_TEST_POSTGRES:-}" ] && [ -z "${DEEPBOT_TEST_POSTGRES_DATA:-}" ]; then
        return 0  # the operator's own server
    fi
    local found
    if _pg_install && found="$(_pg_cluster)"; then
        export DEEPBOT_TEST_POSTGRES="${found% *}"
        export DEEPBOT_TEST_POSTGRES_DATA="${found#* }/data"
        echo "postgres.sh: a test cluster at $DEEPBOT_TEST_POSTGRES" >&2
        return 0
    fi
    if [ -n "${CI:-}" ]; then
        echo "postgres.sh: CI needs a PostgreSQL cluster and none could be started" >&2
        return 1
    fi
    echo "postgres.sh: no PostgreSQL cluster; the tests that need one are skipped" >&2
    return 0
}

# postgres_stop [DATA_DIR]: the cluster postgres_start started (or the one named).
postgres_stop() {
    local data="${1:-${DEEPBOT_TEST_POSTGRES_DATA:-}}"
    [ -n "$data" ] && [ -d "$data" ] || return 0
    _pg_as "$(_pg_bindir)/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$(dirname "$data")"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    if [ "${1:-}" = stop ]; then
        postgres_stop "${2:-}"
    else
        unset DEEPBOT_TEST_POSTGRES DEEPBOT_TEST_POSTGRES_DATA
        postgres_start
        echo "export DEEPBOT_TEST_POSTGRES=$DEEPBOT_TEST_POSTGRES DEEPBOT_TEST_POSTGRES_DATA=$DEEPBOT_TEST_POSTGRES_DATA"
    fi
fi

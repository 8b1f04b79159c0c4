#!/usr/bin/env bash
# Local PostgreSQL (Debian's postgresql package) run as a plain process that we own, for
# development, CI and the benchmarks: a cluster initialised in .run/postgres, listening on
# loopback only, trust authentication for the local user `postgres`.
#
# Usage: scripts/postgres.sh start|stop|status|url
#   start   install postgresql if missing (root + apt only), initdb the cluster on first use,
#           start the server in the background and wait until it accepts connections (idempotent)
#   stop    fast shutdown of the server started by `start` (SIGINT to its pid, KILL after the
#           timeout; idempotent)
#   status  exit 0 when it accepts connections, 1 otherwise
#   url     print the connection URL (postgresql://postgres@HOST:PORT/postgres)
#
# Environment (all optional):
#   POSTGRES_URL              use this external PostgreSQL: start/stop manage nothing, status probes it
#   POSTGRES_HOST (127.0.0.1)  POSTGRES_PORT (5432)
#   POSTGRES_START_TIMEOUT (30, seconds)  POSTGRES_STOP_TIMEOUT (30, seconds)
#   POSTGRES_RUN_DIR (.run/postgres)
# As root the server runs as the system user `postgres` (PostgreSQL refuses to run as root);
# the package creates that user.
set -euo pipefail

LOG_PREFIX="postgres.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

POSTGRES_HOST="${POSTGRES_HOST:-127.0.0.1}"
POSTGRES_PORT="${POSTGRES_PORT:-5432}"
POSTGRES_START_TIMEOUT="${POSTGRES_START_TIMEOUT:-30}"
POSTGRES_STOP_TIMEOUT="${POSTGRES_STOP_TIMEOUT:-30}"
POSTGRES_RUN_DIR="${POSTGRES_RUN_DIR:-$REPO_ROOT/.run/postgres}"

DATA_DIR="$POSTGRES_RUN_DIR/data"
PID_FILE="$POSTGRES_RUN_DIR/postgres.pid"
SERVER_LOG="$POSTGRES_RUN_DIR/postgres.log"
PID_PATTERN="postgres"

# --- prerequisites ---------------------------------------------------------------------------

# The newest installed server's bin directory (Debian: /usr/lib/postgresql/<major>/bin).
pg_bindir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [[ -n "$dir" && -x "$dir/postgres" ]]; then
    printf '%s\n' "$dir"
    return 0
  fi
  if command -v postgres >/dev/null 2>&1; then
    dirname "$(command -v postgres)"
    return 0
  fi
  return 1
}

require_postgres() {
  pg_bindir >/dev/null && return 0
  if can_apt_install; then
    apt_install postgresql || true
  fi
  pg_bindir >/dev/null ||
    die "PostgreSQL is required; install it with: apt-get install -y postgresql"
}

# as_owner CMD...: runs CMD as the cluster's owner (`postgres` when we are root).
as_owner() {
  if [[ "$(id -u)" == "0" ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# --- probes ----------------------------------------------------------------------------------

pg_ready() {
  local bindir
  bindir="$(pg_bindir)" || return 1
  "$bindir/pg_isready" -q -h "$1" -p "$2" -t 3 >/dev/null 2>&1
}

url() {
  printf 'postgresql://postgres@%s:%s/postgres\n' "$POSTGRES_HOST" "$POSTGRES_PORT"
}

# --- commands --------------------------------------------------------------------------------

init_cluster() {
  local bindir="$1"
  [[ -f "$DATA_DIR/PG_VERSION" ]] && return 0
  mkdir -p "$DATA_DIR"
  if [[ "$(id -u)" == "0" ]]; then
    chown -R postgres:postgres "$POSTGRES_RUN_DIR"
  fi
  chmod 700 "$DATA_DIR"
  log "initialising a cluster in ${DATA_DIR#"$REPO_ROOT"/}"
  as_owner "$bindir/initdb" -D "$DATA_DIR" -U postgres -A trust --encoding=UTF8 --locale=C.UTF-8 \
    >"$POSTGRES_RUN_DIR/initdb.log" 2>&1 || {
    log_tail "$POSTGRES_RUN_DIR/initdb.log"
    die "initdb failed"
  }
}

cmd_start() {
  if [[ -n "${POSTGRES_URL:-}" ]]; then
    log "POSTGRES_URL is set: using the external PostgreSQL at $(redacted_url "$POSTGRES_URL") (nothing started)"
    return 0
  fi
  local pid bindir started deadline
  started=$SECONDS
  if pid="$(running_pid "$PID_FILE" "$PID_PATTERN")"; then
    if pg_ready "$POSTGRES_HOST" "$POSTGRES_PORT"; then
      log "PostgreSQL is already running (pid $pid) on $POSTGRES_HOST:$POSTGRES_PORT"
      return 0
    fi
    log "PostgreSQL is running (pid $pid) but not accepting connections yet; waiting"
  else
    require_postgres
    bindir="$(pg_bindir)"
    if tcp_open "$POSTGRES_HOST" "$POSTGRES_PORT"; then
      die "$POSTGRES_HOST:$POSTGRES_PORT is already in use by another process; stop it, choose another POSTGRES_PORT, or set POSTGRES_URL to use a running PostgreSQL"
    fi
    mkdir -p "$POSTGRES_RUN_DIR"
    init_cluster "$bindir"
    rm -f "$DATA_DIR/postmaster.pid"  # left by a killed server; ours is not running
    if [[ -s "$SERVER_LOG" ]]; then
      mv -f "$SERVER_LOG" "$SERVER_LOG.prev"
    fi
    : >"$SERVER_LOG"
    if [[ "$(id -u)" == "0" ]]; then
      chown postgres:postgres "$SERVER_LOG" "$POSTGRES_RUN_DIR"
    fi
    # the socket goes to the run folder (not /var/run/postgresql, which may not exist)
    as_owner nohup "$bindir/postgres" -D "$DATA_DIR" -h "$POSTGRES_HOST" -p "$POSTGRES_PORT" \
      -k "$POSTGRES_RUN_DIR" -c max_connections=200 -c shared_buffers=128MB \
      </dev/null >>"$SERVER_LOG" 2>&1 &
    deadline=$((SECONDS + 10))
    pid=""
    while ((SECONDS < deadline)); do
      if [[ -f "$DATA_DIR/postmaster.pid" ]]; then
        read -r pid <"$DATA_DIR/postmaster.pid" || true
        [[ "$pid" =~ ^[0-9]+$ ]] && break
      fi
      sleep 0.1
    done
    [[ "$pid" =~ ^[0-9]+$ ]] || {
      log_tail "$SERVER_LOG"
      die "PostgreSQL did not start (no postmaster.pid)"
    }
    printf '%s\n' "$pid" >"$PID_FILE"
    log "started $("$bindir/postgres" --version) (pid $pid), waiting up to ${POSTGRES_START_TIMEOUT}s for $POSTGRES_HOST:$POSTGRES_PORT; log: ${SERVER_LOG#"$REPO_ROOT"/}"
  fi

  deadline=$((SECONDS + POSTGRES_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! pid_alive "$pid" "$PID_PATTERN"; then
      rm -f "$PID_FILE"
      log_tail "$SERVER_LOG"
      die "PostgreSQL exited during startup"
    fi
    if pg_ready "$POSTGRES_HOST" "$POSTGRES_PORT"; then
      log "PostgreSQL is ready on $POSTGRES_HOST:$POSTGRES_PORT after $((SECONDS - started))s ($(url))"
      return 0
    fi
    sleep 0.1
  done
  warn "PostgreSQL did not accept connections within ${POSTGRES_START_TIMEOUT}s; stopping it"
  cmd_stop
  log_tail "$SERVER_LOG"
  die "PostgreSQL failed to start on $POSTGRES_HOST:$POSTGRES_PORT"
}

cmd_stop() {
  if [[ -n "${POSTGRES_URL:-}" && ! -f "$PID_FILE" ]]; then
    log "POSTGRES_URL is set: the external PostgreSQL at $(redacted_url "$POSTGRES_URL") is not managed here"
    return 0
  fi
  # SIGINT is PostgreSQL's fast shutdown
  stop_pidfile "$PID_FILE" "PostgreSQL" "$PID_PATTERN" "$POSTGRES_STOP_TIMEOUT" INT
}

cmd_status() {
  if [[ -n "${POSTGRES_URL:-}" ]]; then
    local rest host port
    rest="${POSTGRES_URL#*://}"
    rest="${rest##*@}"
    rest="${rest%%/*}"
    host="${rest%%:*}"
    port="${rest##*:}"
    [[ "$port" == "$rest" ]] && port=5432
    if pg_ready "$host" "$port" || tcp_open "$host" "$port"; then
      log "external PostgreSQL at $(redacted_url "$POSTGRES_URL") answers"
      return 0
    fi
    log "external PostgreSQL at $(redacted_url "$POSTGRES_URL") does not answer"
    return 1
  fi
  local pid
  if ! pid="$(running_pid "$PID_FILE" "$PID_PATTERN")"; then
    log "PostgreSQL is not running"
    return 1
  fi
  if pg_ready "$POSTGRES_HOST" "$POSTGRES_PORT"; then
    log "PostgreSQL is running (pid $pid) and accepts connections on $POSTGRES_HOST:$POSTGRES_PORT"
    return 0
  fi
  log "PostgreSQL is running (pid $pid) but does not accept connections on $POSTGRES_HOST:$POSTGRES_PORT"
  return 1
}

usage() {
  printf 'usage: %s start|stop|status|url\n' "$0" >&2
  exit 2
}

main() {
  [[ $# -eq 1 ]] || usage
  case "$1" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) if [[ -n "${POSTGRES_URL:-}" ]]; then printf '%s\n' "$POSTGRES_URL"; else url; fi ;;
  *) usage ;;
  esac
}

main "$@"

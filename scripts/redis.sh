#!/usr/bin/env bash
# Local Redis (Debian's redis-server) run as a plain foreground process that we own, without
# persistence, for development and CI.
#
# Usage: scripts/redis.sh start|stop|status
#   start   install redis-server if missing (root + apt only), start it in the background and
#           wait until it answers PING (idempotent)
#   stop    stop the Redis started by `start` (TERM, then KILL after 20 s; idempotent)
#   status  exit 0 when it answers PING, 1 otherwise
#
# Environment (all optional):
#   REDIS_URL              use this external Redis: start/stop manage nothing, status probes it
#   REDIS_HOST (127.0.0.1)  REDIS_PORT (6379)
#   REDIS_START_TIMEOUT (20, seconds)  REDIS_STOP_TIMEOUT (20, seconds)
#   REDIS_RUN_DIR (.run/redis)
set -euo pipefail

LOG_PREFIX="redis.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REDIS_HOST="${REDIS_HOST:-127.0.0.1}"
REDIS_PORT="${REDIS_PORT:-6379}"
REDIS_START_TIMEOUT="${REDIS_START_TIMEOUT:-20}"
REDIS_STOP_TIMEOUT="${REDIS_STOP_TIMEOUT:-20}"
REDIS_RUN_DIR="${REDIS_RUN_DIR:-$REPO_ROOT/.run/redis}"

PID_FILE="$REDIS_RUN_DIR/redis.pid"
SERVER_LOG="$REDIS_RUN_DIR/redis.log"
# redis-server rewrites its process title to "redis-server HOST:PORT".
PID_PATTERN="redis-server"

# --- prerequisites ---------------------------------------------------------------------------

require_redis() {
  command -v redis-server >/dev/null 2>&1 && return 0
  if can_apt_install; then
    apt_install redis-server || true
    hash -r
  fi
  command -v redis-server >/dev/null 2>&1 ||
    die "'redis-server' is required; install it with: apt-get install -y redis-server"
}

# --- probes ----------------------------------------------------------------------------------

# redis_ping HOST PORT: true when a Redis answers PONG there (redis-cli, else bash /dev/tcp).
redis_ping() {
  local host="$1" port="$2" reply=""
  if command -v redis-cli >/dev/null 2>&1; then
    reply="$(timeout 3 redis-cli -h "$host" -p "$port" ping 2>/dev/null)" || return 1
  else
    # shellcheck disable=SC2016 # expanded by the inner bash
    reply="$(timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf "PING\r\n" >&3 && IFS= read -r line <&3 && printf "%s" "$line"' _ "$host" "$port" 2>/dev/null)" || return 1
  fi
  reply="${reply//$'\r'/}"
  [[ "$reply" == "PONG" || "$reply" == "+PONG" ]]
}

# ping_url URL: probes an external Redis given as redis://[user:pass@]host[:port][/db].
ping_url() {
  local url="$1" rest host port
  if command -v redis-cli >/dev/null 2>&1; then
    [[ "$(timeout 3 redis-cli -u "$url" ping 2>/dev/null)" == "PONG" ]]
    return
  fi
  rest="${url#*://}"
  rest="${rest##*@}"
  rest="${rest%%/*}"
  host="${rest%%:*}"
  port="${rest##*:}"
  [[ "$port" == "$rest" ]] && port=6379
  redis_ping "$host" "$port"
}

# Pids of redis-server processes (other than ours) whose title names our port.
foreign_redis_pids() {
  local ours="${1:-}" dir pid comm cmdline
  for dir in /proc/[0-9]*; do
    pid="${dir#/proc/}"
    [[ "$pid" == "$ours" ]] && continue
    comm="$(cat "$dir/comm" 2>/dev/null)" || continue
    [[ "$comm" == redis-server* ]] || continue
    cmdline="$(tr '\0' ' ' <"$dir/cmdline" 2>/dev/null)" || continue
    [[ "$cmdline" == *":$REDIS_PORT"* ]] && printf '%s\n' "$pid"
  done
  return 0
}

# When a redis-server that is not ours (typically the one Debian's package starts as a service)
# holds our port, stop it, best effort, and say so.
stop_foreign_redis() {
  local ours="${1:-}" pids pid
  tcp_open "$REDIS_HOST" "$REDIS_PORT" || return 0
  pids="$(foreign_redis_pids "$ours")"
  [[ -n "$pids" ]] || return 0
  log "a redis-server not started by this script (pid $(echo "$pids" | tr '\n' ' ' | sed 's/ $//')) listens on port $REDIS_PORT; stopping it"
  if command -v service >/dev/null 2>&1; then
    service redis-server stop >/dev/null 2>&1 || true
  fi
  for pid in $pids; do
    stop_pid "$pid" "redis-server" "redis-server" 10 || true
  done
}

# --- commands --------------------------------------------------------------------------------

cmd_start() {
  if [[ -n "${REDIS_URL:-}" ]]; then
    log "REDIS_URL is set: using the external Redis at $(redacted_url "$REDIS_URL") (nothing started)"
    return 0
  fi

  local pid started deadline
  started=$SECONDS
  if pid="$(running_pid "$PID_FILE" "$PID_PATTERN")"; then
    if redis_ping "$REDIS_HOST" "$REDIS_PORT"; then
      log "Redis is already running (pid $pid) on $REDIS_HOST:$REDIS_PORT"
      return 0
    fi
    log "Redis is running (pid $pid) but not answering yet; waiting"
  else
    require_redis
    stop_foreign_redis
    if tcp_open "$REDIS_HOST" "$REDIS_PORT"; then
      die "$REDIS_HOST:$REDIS_PORT is already in use by another process; stop it, choose another REDIS_PORT, or set REDIS_URL to use a running Redis"
    fi
    mkdir -p "$REDIS_RUN_DIR"
    if [[ -s "$SERVER_LOG" ]]; then
      mv -f "$SERVER_LOG" "$SERVER_LOG.prev"
    fi
    nohup redis-server --bind "$REDIS_HOST" --port "$REDIS_PORT" --daemonize no \
      --dir "$REDIS_RUN_DIR" --save '' --appendonly no --logfile '' \
      </dev/null >>"$SERVER_LOG" 2>&1 &
    pid=$!
    printf '%s\n' "$pid" >"$PID_FILE"
    log "started $(redis-server --version | cut -d' ' -f1-3) (pid $pid), waiting up to ${REDIS_START_TIMEOUT}s for $REDIS_HOST:$REDIS_PORT; log: ${SERVER_LOG#"$REPO_ROOT"/}"
  fi

  deadline=$((SECONDS + REDIS_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! pid_alive "$pid" "$PID_PATTERN"; then
      rm -f "$PID_FILE"
      log_tail "$SERVER_LOG"
      die "Redis exited during startup"
    fi
    if redis_ping "$REDIS_HOST" "$REDIS_PORT"; then
      log "Redis is ready on $REDIS_HOST:$REDIS_PORT after $((SECONDS - started))s"
      return 0
    fi
    sleep 0.1
  done
  warn "Redis did not answer PING within ${REDIS_START_TIMEOUT}s; stopping it"
  stop_pid "$pid" "Redis" "$PID_PATTERN" "$REDIS_STOP_TIMEOUT"
  rm -f "$PID_FILE"
  log_tail "$SERVER_LOG"
  die "Redis failed to start on $REDIS_HOST:$REDIS_PORT"
}

cmd_stop() {
  if [[ -n "${REDIS_URL:-}" && ! -f "$PID_FILE" ]]; then
    log "REDIS_URL is set: the external Redis at $(redacted_url "$REDIS_URL") is not managed here"
    return 0
  fi
  stop_pidfile "$PID_FILE" "Redis" "$PID_PATTERN" "$REDIS_STOP_TIMEOUT"
}

cmd_status() {
  if [[ -n "${REDIS_URL:-}" ]]; then
    if ping_url "$REDIS_URL"; then
      log "external Redis at $(redacted_url "$REDIS_URL") answers"
      return 0
    fi
    log "external Redis at $(redacted_url "$REDIS_URL") does not answer"
    return 1
  fi
  local pid
  if ! pid="$(running_pid "$PID_FILE" "$PID_PATTERN")"; then
    log "Redis is not running"
    return 1
  fi
  if redis_ping "$REDIS_HOST" "$REDIS_PORT"; then
    log "Redis is running (pid $pid) and answers on $REDIS_HOST:$REDIS_PORT"
    return 0
  fi
  log "Redis is running (pid $pid) but does not answer on $REDIS_HOST:$REDIS_PORT"
  return 1
}

usage() {
  printf 'usage: %s start|stop|status\n' "$0" >&2
  exit 2
}

main() {
  [[ $# -eq 1 ]] || usage
  case "$1" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) usage ;;
  esac
}

main "$@"

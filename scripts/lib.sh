# shellcheck shell=bash
# Shared helpers for scripts/kafka.sh, redis.sh, postgres.sh and k8s-cluster.sh. Source it,
# don't run it.
#
# The sourcing script sets LOG_PREFIX (its own name, e.g. "kafka.sh") first.

# Repository root, resolved from this file's location so the scripts work from any cwd.
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT

LOG_PREFIX="${LOG_PREFIX:-$(basename "$0")}"

log() { printf '%s: %s\n' "$LOG_PREFIX" "$*"; }
warn() { printf '%s: %s\n' "$LOG_PREFIX" "$*" >&2; }
die() {
  printf '%s: %s\n' "$LOG_PREFIX" "$*" >&2
  exit 1
}

# --- installing Debian packages --------------------------------------------------------------

# True when we may install Debian packages ourselves: root and apt-get present.
can_apt_install() {
  [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1
}

_APT_UPDATED=0
# apt_quiet ARGS...: runs apt-get ARGS... with its output kept aside; shows it on failure.
apt_quiet() {
  local out rc=0
  out="$(mktemp)"
  DEBIAN_FRONTEND=noninteractive apt-get "$@" >"$out" 2>&1 || rc=$?
  if ((rc != 0)); then
    tail -n 20 "$out" | sed -e 's/^/    /' >&2
  fi
  rm -f "$out"
  return "$rc"
}

# apt_install PKG...: runs `apt-get update` once per script run, then installs PKG...
apt_install() {
  if [[ "$_APT_UPDATED" == "0" ]]; then
    warn "running apt-get update"
    apt_quiet update -q || return 1
    _APT_UPDATED=1
  fi
  warn "running apt-get install -y --no-install-recommends $*"
  apt_quiet install -y -q --no-install-recommends "$@"
}

# --- processes and pid files -----------------------------------------------------------------

# pid_alive PID [PATTERN]: true when PID is a live (not zombie) process whose command line
# contains PATTERN (when given). Guards against a recycled pid from a stale pid file.
pid_alive() {
  local pid="$1" pattern="${2:-}" state cmdline
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/stat" ]]; then
    # Field 3 of /proc/PID/stat is the state; the comm field (2) may contain spaces, so cut
    # after its closing parenthesis.
    state="$(sed -e 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" || state=""
    [[ "$state" == "Z" || "$state" == "X" ]] && return 1
  fi
  if [[ -n "$pattern" && -r "/proc/$pid/cmdline" ]]; then
    cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
    [[ "$cmdline" == *"$pattern"* ]] || return 1
  fi
  return 0
}

# pidfile_pid FILE: prints the pid stored in FILE (empty when there is none).
pidfile_pid() {
  local file="$1" pid=""
  if [[ -f "$file" ]]; then
    read -r pid <"$file" || true
  fi
  if [[ "$pid" =~ ^[0-9]+$ ]]; then
    printf '%s\n' "$pid"
  fi
}

# running_pid FILE PATTERN: prints the pid from FILE when that process is alive and matches
# PATTERN; removes FILE when it is stale. Returns 1 when nothing of ours is running.
running_pid() {
  local file="$1" pattern="$2" pid
  pid="$(pidfile_pid "$file")"
  if [[ -n "$pid" ]] && pid_alive "$pid" "$pattern"; then
    printf '%s\n' "$pid"
    return 0
  fi
  if [[ -e "$file" ]]; then
    rm -f "$file"
    warn "removed stale pid file ${file#"$REPO_ROOT"/}${pid:+ (pid $pid is gone)}"
  fi
  return 1
}

# wait_pid_exit PID SECONDS [PATTERN]: waits until PID has exited; false on timeout.
wait_pid_exit() {
  local pid="$1" seconds="$2" pattern="${3:-}" deadline
  deadline=$((SECONDS + seconds))
  while pid_alive "$pid" "$pattern"; do
    ((SECONDS >= deadline)) && return 1
    sleep 0.2
  done
  return 0
}

# stop_pid PID NAME [PATTERN] [SECONDS] [SIGNAL]: SIGNAL (default TERM), wait up to SECONDS
# (default 20), then KILL.
stop_pid() {
  local pid="$1" name="$2" pattern="${3:-}" seconds="${4:-20}" signal="${5:-TERM}"
  pid_alive "$pid" "$pattern" || return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  if ! wait_pid_exit "$pid" "$seconds" "$pattern"; then
    warn "$name (pid $pid) did not stop within ${seconds}s; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    wait_pid_exit "$pid" 5 "$pattern" || die "$name (pid $pid) survived KILL"
  fi
}

# stop_pidfile FILE NAME PATTERN [SECONDS] [SIGNAL]: stops the process recorded in FILE (by
# stop_pid), removes FILE. Harmless when nothing is running.
stop_pidfile() {
  local file="$1" name="$2" pattern="$3" seconds="${4:-20}" signal="${5:-TERM}" pid
  if ! pid="$(running_pid "$file" "$pattern")"; then
    log "$name is not running"
    return 0
  fi
  log "stopping $name (pid $pid)"
  stop_pid "$pid" "$name" "$pattern" "$seconds" "$signal"
  rm -f "$file"
  log "$name stopped"
}

# redacted_url URL: URL with its user info (user:password@) shown as ***, for log lines.
redacted_url() {
  local url="$1"
  if [[ "$url" == *://*@* ]]; then
    printf '%s://***@%s\n' "${url%%://*}" "${url##*@}"
  else
    printf '%s\n' "$url"
  fi
}

# --- network ---------------------------------------------------------------------------------

# tcp_open HOST PORT: true when something accepts TCP connections on HOST:PORT.
tcp_open() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# log_tail FILE [N]: prints the last N (default 30) lines of FILE to stderr, indented.
log_tail() {
  local file="$1" n="${2:-30}"
  [[ -f "$file" ]] || return 0
  warn "last $n lines of ${file#"$REPO_ROOT"/}:"
  tail -n "$n" "$file" | sed -e 's/^/    /' >&2
}

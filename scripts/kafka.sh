#!/usr/bin/env bash
# Local single-node Apache Kafka 4.x broker (KRaft, combined broker+controller) run as a plain
# JVM process from jars that Maven resolves from deploy/local/kafka/pom.xml. No Docker.
#
# Usage: scripts/kafka.sh fetch|start|stop|status
#   fetch   copy the broker's runtime jars into .cache/kafka/libs (skipped when up to date)
#   start   fetch if needed, format storage on first use, start the broker in the background
#           and wait until it answers a metadata request (idempotent)
#   stop    stop the broker started by `start` (TERM, then KILL after 20 s; idempotent)
#   status  exit 0 when the broker answers, 1 otherwise
#
# Environment (all optional):
#   KAFKA_BOOTSTRAP_SERVERS  use this external broker: start/stop manage nothing, status probes it
#   KAFKA_HOST (127.0.0.1)  KAFKA_PORT (9092)  KAFKA_CONTROLLER_PORT (9093)
#   KAFKA_HEAP_OPTS (-Xmx512m)  KAFKA_JVM_PERFORMANCE_OPTS  KAFKA_OPTS (extra JVM options)
#   KAFKA_NUM_IO_THREADS (2)  KAFKA_NUM_NETWORK_THREADS (1)  KAFKA_METADATA_MAX_IDLE_INTERVAL_MS (5000)
#   KAFKA_START_TIMEOUT (60, seconds)  KAFKA_STOP_TIMEOUT (20, seconds)
#   KAFKA_LOG_LEVEL (INFO)  KAFKA_CLUSTER_ID (generated on first format)
#   KAFKA_CACHE_DIR (.cache/kafka)  KAFKA_RUN_DIR (.run/kafka)
#   PYTHON (.venv/bin/python; used for the aiokafka readiness probe)  JAVA_HOME  MVN (mvn)
set -euo pipefail

LOG_PREFIX="kafka.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KAFKA_HOST="${KAFKA_HOST:-127.0.0.1}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx512m}"
# -XX:TieredStopAtLevel=1: C1 only. At the mesh's rates the C2 compiler was still compiling
# after thousands of records (0.4-1.2 ms of compiler CPU per record, a fifth of the idle
# burn) while the code it had not reached yet ran in profiling tiers.
KAFKA_JVM_PERFORMANCE_OPTS="${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:TieredStopAtLevel=1 -Djava.awt.headless=true}"
KAFKA_NUM_IO_THREADS="${KAFKA_NUM_IO_THREADS:-2}"
KAFKA_NUM_NETWORK_THREADS="${KAFKA_NUM_NETWORK_THREADS:-1}"
KAFKA_METADATA_MAX_IDLE_INTERVAL_MS="${KAFKA_METADATA_MAX_IDLE_INTERVAL_MS:-5000}"
KAFKA_OPTS="${KAFKA_OPTS:-}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-60}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-20}"
KAFKA_LOG_LEVEL="${KAFKA_LOG_LEVEL:-INFO}"
KAFKA_CACHE_DIR="${KAFKA_CACHE_DIR:-$REPO_ROOT/.cache/kafka}"
KAFKA_RUN_DIR="${KAFKA_RUN_DIR:-$REPO_ROOT/.run/kafka}"
PYTHON="${PYTHON:-$REPO_ROOT/.venv/bin/python}"
MVN="${MVN:-mvn}"

POM="$REPO_ROOT/deploy/local/kafka/pom.xml"
LIBS_DIR="$KAFKA_CACHE_DIR/libs"
STAMP_FILE="$LIBS_DIR/.pom.sha256"
DATA_DIR="$KAFKA_RUN_DIR/data"
CONFIG_FILE="$KAFKA_RUN_DIR/server.properties"
LOG4J_FILE="$KAFKA_RUN_DIR/log4j2.properties"
PID_FILE="$KAFKA_RUN_DIR/kafka.pid"
SERVER_LOG="$KAFKA_RUN_DIR/server.log"
# What a live broker of ours has on its command line (guards against recycled pids).
PID_PATTERN="kafka.Kafka $CONFIG_FILE"
BOOTSTRAP="$KAFKA_HOST:$KAFKA_PORT"

# --- prerequisites ---------------------------------------------------------------------------

java_bin() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
    printf '%s\n' "$JAVA_HOME/bin/java"
  else
    command -v java 2>/dev/null || true
  fi
}

# Major version of a java binary: "17.0.15" -> 17, "1.8.0_392" -> 8.
java_major() {
  local version
  version="$("$1" -version 2>&1 | sed -n -e 's/^.*version "\([^"]*\)".*$/\1/p' | head -n 1)"
  version="${version#1.}"
  printf '%s\n' "${version%%[.+_-]*}"
}

JAVA=""
require_java() {
  local major
  JAVA="$(java_bin)"
  if [[ -z "$JAVA" ]] && can_apt_install; then
    apt_install openjdk-17-jre-headless ||
      apt_install openjdk-21-jre-headless ||
      apt_install default-jre-headless || true
    hash -r
    JAVA="$(java_bin)"
  fi
  if [[ -z "$JAVA" ]]; then
    die "'java' (OpenJDK 17) is required; install it with: apt-get install -y openjdk-17-jre-headless"
  fi
  major="$(java_major "$JAVA")"
  if ! [[ "$major" =~ ^[0-9]+$ ]] || ((major < 17)); then
    die "Kafka 4.x needs Java 17 or newer but $JAVA is version '${major:-unknown}'; install it with: apt-get install -y openjdk-17-jre-headless (or set JAVA_HOME)"
  fi
}

require_mvn() {
  if ! command -v "$MVN" >/dev/null 2>&1 && can_apt_install; then
    apt_install maven || true
    hash -r
  fi
  command -v "$MVN" >/dev/null 2>&1 ||
    die "'mvn' (Maven) is required to fetch the Kafka jars; install it with: apt-get install -y maven"
}

# --- fetch -----------------------------------------------------------------------------------

pom_hash() { sha256sum "$POM" | cut -d' ' -f1; }

libs_up_to_date() {
  [[ -f "$STAMP_FILE" ]] || return 1
  [[ "$(cat "$STAMP_FILE")" == "$(pom_hash)" ]] || return 1
  compgen -G "$LIBS_DIR/kafka_2.13-*.jar" >/dev/null
}

cmd_fetch() {
  if libs_up_to_date; then
    log "jars are up to date in ${LIBS_DIR#"$REPO_ROOT"/}"
    return 0
  fi
  require_java
  require_mvn
  local tmp started
  started=$SECONDS
  mkdir -p "$KAFKA_CACHE_DIR"
  tmp="$(mktemp -d "$KAFKA_CACHE_DIR/libs.tmp.XXXXXX")"
  chmod 755 "$tmp"
  log "fetching the Kafka jars listed in ${POM#"$REPO_ROOT"/}"
  if ! "$MVN" -q -B -f "$POM" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$tmp" >"$KAFKA_CACHE_DIR/mvn.log" 2>&1; then
    rm -rf "$tmp"
    log_tail "$KAFKA_CACHE_DIR/mvn.log" 40
    die "mvn could not fetch the Kafka jars (Maven's output: ${KAFKA_CACHE_DIR#"$REPO_ROOT"/}/mvn.log)"
  fi
  if ! compgen -G "$tmp/kafka_2.13-*.jar" >/dev/null; then
    rm -rf "$tmp"
    die "mvn ran but no kafka_2.13 jar was copied; check ${POM#"$REPO_ROOT"/}"
  fi
  pom_hash >"$tmp/.pom.sha256"
  rm -rf "$LIBS_DIR"
  mv "$tmp" "$LIBS_DIR"
  log "fetched $(find "$LIBS_DIR" -name '*.jar' | wc -l) jars into ${LIBS_DIR#"$REPO_ROOT"/} in $((SECONDS - started))s"
}

kafka_version() {
  local jar
  jar="$(compgen -G "$LIBS_DIR/kafka_2.13-*.jar" | head -n 1)" || true
  jar="${jar##*/kafka_2.13-}"
  printf '%s\n' "${jar%.jar}"
}

# --- readiness probe -------------------------------------------------------------------------

_HAVE_AIOKAFKA=""
have_aiokafka() {
  if [[ -z "$_HAVE_AIOKAFKA" ]]; then
    _HAVE_AIOKAFKA=no
    if [[ -x "$PYTHON" ]] && "$PYTHON" -c 'import aiokafka' >/dev/null 2>&1; then
      _HAVE_AIOKAFKA=yes
    fi
  fi
  [[ "$_HAVE_AIOKAFKA" == yes ]]
}

# probe_aiokafka BOOTSTRAP: one metadata request; true when the cluster reports a broker.
probe_aiokafka() {
  timeout 15 "$PYTHON" - "$1" >/dev/null 2>&1 <<'EOF'
import asyncio
import sys

from aiokafka.admin import AIOKafkaAdminClient


async def main(bootstrap: str) -> int:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000)
    try:
        await admin.start()
        cluster = await admin.describe_cluster()
    finally:
        await admin.close()
    return 0 if cluster.get("brokers") else 1


sys.exit(asyncio.run(main(sys.argv[1])))
EOF
}

# probe BOOTSTRAP [LOGFILE]: aiokafka metadata request when the interpreter has aiokafka;
# otherwise the first host:port accepts TCP and (for our own broker) the log says it started.
probe() {
  local bootstrap="$1" logfile="${2:-}" first host port
  if have_aiokafka; then
    probe_aiokafka "$bootstrap"
    return
  fi
  first="${bootstrap%%,*}"
  first="${first#*://}"
  host="${first%:*}"
  port="${first##*:}"
  tcp_open "$host" "$port" || return 1
  [[ -z "$logfile" ]] || grep -q "Kafka Server started" "$logfile" 2>/dev/null
}

probe_kind() {
  if have_aiokafka; then
    printf 'metadata request (aiokafka via %s)\n' "$PYTHON"
  else
    printf 'TCP connect + "Kafka Server started" in the log (no aiokafka in %s)\n' "$PYTHON"
  fi
}

# wait_ready PID: waits until our broker answers; false when it died or timed out.
wait_ready() {
  local pid="$1" deadline
  deadline=$((SECONDS + KAFKA_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    pid_alive "$pid" "$PID_PATTERN" || return 1
    if probe "$BOOTSTRAP" "$SERVER_LOG"; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}

# --- configuration ---------------------------------------------------------------------------

write_config() {
  mkdir -p "$DATA_DIR"
  cat >"$CONFIG_FILE" <<EOF
# Generated by scripts/kafka.sh on every start; edit the script, not this file.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA_DIR
# The project creates its topics explicitly from its catalog.
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
# One node: internal topics with one replica (and few partitions, so they are created fast).
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# A single-node broker for a laptop, CI and the benchmarks (bench/kafka_record_cost.py,
# docs/operations "The local broker"): 2 request handlers and 1 network thread instead of
# 8 and 3 (each request is handed between fewer threads, and fewer of them wake up to poll),
# and the controller's no-op metadata record every 5 s instead of every 500 ms (most of the
# idle broker's CPU was that record: written, flushed and published to the broker).
num.io.threads=$KAFKA_NUM_IO_THREADS
num.network.threads=$KAFKA_NUM_NETWORK_THREADS
metadata.max.idle.interval.ms=$KAFKA_METADATA_MAX_IDLE_INTERVAL_MS
EOF
  cat >"$LOG4J_FILE" <<EOF
# Generated by scripts/kafka.sh: everything to stdout, which start sends to server.log.
status = warn
name = kafka-local
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = $KAFKA_LOG_LEVEL
rootLogger.appenderRef.stdout.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.statechange.name = state.change.logger
logger.statechange.level = WARN
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = WARN
EOF
}

# Kafka cluster ids are 16 random bytes in unpadded URL-safe base64 (22 characters), as
# `kafka-storage random-uuid` prints them; Kafka never hands out one starting with '-'.
new_cluster_id() {
  local id=""
  while [[ -z "$id" || "$id" == -* ]]; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
  done
  printf '%s\n' "$id"
}

format_storage() {
  if [[ -f "$DATA_DIR/meta.properties" ]]; then
    return 0
  fi
  local cluster_id="${KAFKA_CLUSTER_ID:-$(new_cluster_id)}"
  log "formatting ${DATA_DIR#"$REPO_ROOT"/} with cluster id $cluster_id"
  # shellcheck disable=SC2086 # option lists are meant to split
  if ! "$JAVA" $KAFKA_HEAP_OPTS -cp "$LIBS_DIR/*" \
    -Dlog4j2.configurationFile="$LOG4J_FILE" \
    kafka.tools.StorageTool format --ignore-formatted \
    -t "$cluster_id" -c "$CONFIG_FILE" >>"$SERVER_LOG" 2>&1; then
    log_tail "$SERVER_LOG"
    die "formatting the Kafka storage failed"
  fi
}

# --- commands --------------------------------------------------------------------------------

cmd_start() {
  if [[ -n "${KAFKA_BOOTSTRAP_SERVERS:-}" ]]; then
    log "KAFKA_BOOTSTRAP_SERVERS is set: using the external broker at $KAFKA_BOOTSTRAP_SERVERS (nothing started)"
    if probe "$KAFKA_BOOTSTRAP_SERVERS"; then
      log "external broker answers"
    else
      warn "external broker at $KAFKA_BOOTSTRAP_SERVERS does not answer (yet)"
    fi
    return 0
  fi

  local pid started
  started=$SECONDS
  if pid="$(running_pid "$PID_FILE" "$PID_PATTERN")"; then
    if probe "$BOOTSTRAP" "$SERVER_LOG"; then
      log "Kafka is already running (pid $pid) on $BOOTSTRAP"
      return 0
    fi
    log "Kafka is running (pid $pid) but not answering yet; waiting"
    require_java
  else
    require_java
    cmd_fetch
    local port
    for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
      if tcp_open "$KAFKA_HOST" "$port"; then
        die "$KAFKA_HOST:$port is already in use by another process; stop it, choose other KAFKA_PORT/KAFKA_CONTROLLER_PORT, or set KAFKA_BOOTSTRAP_SERVERS to use a running broker"
      fi
    done
    mkdir -p "$KAFKA_RUN_DIR"
    write_config
    if [[ -s "$SERVER_LOG" ]]; then
      mv -f "$SERVER_LOG" "$SERVER_LOG.prev"
    fi
    format_storage
    # shellcheck disable=SC2086 # option lists are meant to split
    nohup "$JAVA" $KAFKA_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS $KAFKA_OPTS \
      -Dlog4j2.configurationFile="$LOG4J_FILE" \
      -cp "$LIBS_DIR/*" kafka.Kafka "$CONFIG_FILE" \
      </dev/null >>"$SERVER_LOG" 2>&1 &
    pid=$!
    printf '%s\n' "$pid" >"$PID_FILE"
    log "started Kafka $(kafka_version) (pid $pid), waiting up to ${KAFKA_START_TIMEOUT}s for $BOOTSTRAP; log: ${SERVER_LOG#"$REPO_ROOT"/}"
  fi

  if wait_ready "$pid"; then
    log "Kafka is ready on $BOOTSTRAP after $((SECONDS - started))s (probe: $(probe_kind))"
    return 0
  fi
  if pid_alive "$pid" "$PID_PATTERN"; then
    warn "Kafka did not answer within ${KAFKA_START_TIMEOUT}s; stopping it"
    stop_pid "$pid" "Kafka" "$PID_PATTERN" "$KAFKA_STOP_TIMEOUT"
  else
    warn "Kafka exited during startup"
  fi
  rm -f "$PID_FILE"
  log_tail "$SERVER_LOG"
  die "Kafka failed to start on $BOOTSTRAP"
}

cmd_stop() {
  if [[ -n "${KAFKA_BOOTSTRAP_SERVERS:-}" && ! -f "$PID_FILE" ]]; then
    log "KAFKA_BOOTSTRAP_SERVERS is set: the external broker at $KAFKA_BOOTSTRAP_SERVERS is not managed here"
    return 0
  fi
  stop_pidfile "$PID_FILE" "Kafka" "$PID_PATTERN" "$KAFKA_STOP_TIMEOUT"
}

cmd_status() {
  if [[ -n "${KAFKA_BOOTSTRAP_SERVERS:-}" ]]; then
    if probe "$KAFKA_BOOTSTRAP_SERVERS"; then
      log "external broker at $KAFKA_BOOTSTRAP_SERVERS answers"
      return 0
    fi
    log "external broker at $KAFKA_BOOTSTRAP_SERVERS does not answer"
    return 1
  fi
  local pid
  if ! pid="$(running_pid "$PID_FILE" "$PID_PATTERN")"; then
    log "Kafka is not running"
    return 1
  fi
  if probe "$BOOTSTRAP" "$SERVER_LOG"; then
    log "Kafka is running (pid $pid) and answers on $BOOTSTRAP"
    return 0
  fi
  log "Kafka is running (pid $pid) but does not answer on $BOOTSTRAP"
  return 1
}

usage() {
  printf 'usage: %s fetch|start|stop|status\n' "$0" >&2
  exit 2
}

main() {
  [[ $# -eq 1 ]] || usage
  case "$1" in
  fetch) cmd_fetch ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  -h | --help | help) usage ;;
  *) usage ;;
  esac
}

main "$@"

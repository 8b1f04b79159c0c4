#!/usr/bin/env bash
# docker-compose.yml run as users run it, with podman-compose and this checkout's podman state
# (scripts/podman.sh), for `make compose-test` and by hand.
#
# Usage: scripts/compose.sh images|up|down|ps|env
#   images  the mesh image (scripts/image.sh) and, where no image registry answers, local Kafka
#           and Redis images (deploy/compose/local: the Maven jars scripts/kafka.sh fetches, and
#           Debian's redis-server) that KAFKA_IMAGE / REDIS_IMAGE point compose at
#   up      images, then `podman-compose up -d` (returns once the containers exist; podman 4.3
#           neither waits for depends_on conditions nor runs healthchecks by itself)
#   down    stop and remove the project's containers, network and volumes; fails when any
#           container of the project is left
#   ps      the project's containers
#   env     KEY=VALUE lines: podman's state, KAFKA_IMAGE, REDIS_IMAGE, COMPOSE_PROJECT_NAME
#
# Environment (all optional):
#   COMPOSE_PROJECT_NAME (context-loader)  GATEWAY_PUBLISHED_PORT (30779)
#   PODMAN_COMPOSE (.venv/bin/podman-compose)  KAFKA_IMAGE  REDIS_IMAGE (skip the local builds)
set -euo pipefail

LOG_PREFIX="compose.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/podman.sh
source "$REPO_ROOT/scripts/podman.sh"

export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-context-loader}"
PODMAN_COMPOSE="${PODMAN_COMPOSE:-$REPO_ROOT/.venv/bin/podman-compose}"
COMPOSE_FILE="$REPO_ROOT/docker-compose.yml"
LOCAL_IMAGES="$REPO_ROOT/deploy/compose/local"
KAFKA_LIBS="$REPO_ROOT/.cache/kafka/libs"
CONTEXTS="$REPO_ROOT/.cache/compose"

# local_image NAME TAG BASE FILES...: builds deploy/compose/local/NAME.Dockerfile on BASE from a
# context of FILES (hard links) unless the image exists; prints its name.
local_image() {
  local name="$1" tag="$2" base="$3" image context
  shift 3
  image="localhost/context-loader-$name:$tag"
  if ! podman image exists "$image"; then
    podman images --noheading --format '{{.Repository}}:{{.Tag}}' "localhost/context-loader-$name" |
      xargs -r podman rmi --force >/dev/null 2>&1 || true  # older recipes
    context="$CONTEXTS/$name"
    rm -rf "$context"
    mkdir -p "$context"
    ((${#@} == 0)) || cp -al "$@" "$context/"
    log "building $image" >&2
    podman build --quiet --file "$LOCAL_IMAGES/$name.Dockerfile" --build-arg "BASE_IMAGE=$base" \
      --tag "$image" "$context" >/dev/null
    rm -rf "$context"
  fi
  printf '%s\n' "$image"
}

recipe_tag() { cat "$@" | sha256sum | cut -c1-12; }

dependency_images() {
  local base
  if [[ -z "${KAFKA_IMAGE:-}" ]]; then
    "$REPO_ROOT/scripts/kafka.sh" fetch >&2
    base="$("$REPO_ROOT/scripts/image.sh" debian-base kafka-base openjdk-17-jre-headless)"
    KAFKA_IMAGE="$(local_image kafka "$(recipe_tag "$KAFKA_LIBS/.pom.sha256" "$LOCAL_IMAGES"/kafka* \
      "$LOCAL_IMAGES/log4j2.properties" <(echo "$base"))" "$base" "$KAFKA_LIBS" \
      "$LOCAL_IMAGES"/kafka-*.sh "$LOCAL_IMAGES/log4j2.properties")"
  fi
  if [[ -z "${REDIS_IMAGE:-}" ]]; then
    base="$("$REPO_ROOT/scripts/image.sh" debian-base redis-base redis-server)"
    REDIS_IMAGE="$(local_image redis "$(recipe_tag "$LOCAL_IMAGES/redis.Dockerfile" <(echo "$base"))" "$base")"
  fi
  export KAFKA_IMAGE REDIS_IMAGE
}

compose() {
  [[ -x "$PODMAN_COMPOSE" ]] || die "podman-compose is missing: run make install (requirements-dev.txt)"
  "$PODMAN_COMPOSE" --file "$COMPOSE_FILE" --project-name "$COMPOSE_PROJECT_NAME" "$@"
}

project_containers() {
  podman ps --all --format '{{.Names}}' --filter "label=io.podman.compose.project=$COMPOSE_PROJECT_NAME"
}

# netavark 1.4 leaves one empty NETAVARK-DN-* nat chain behind per network with a published
# port: `down` removes those that appeared while the project ran and are still empty.
netavark_chains() {
  command -v iptables >/dev/null 2>&1 || return 0
  iptables -t nat -S 2>/dev/null | sed -n -e 's/^-N \(NETAVARK-DN-.*\)$/\1/p' | sort
}

drop_leaked_chains() {
  local before="$CONTEXTS/chains.$COMPOSE_PROJECT_NAME" chain
  [[ -f "$before" ]] || return 0
  for chain in $(netavark_chains | comm -13 "$before" -); do
    if [[ "$(iptables -t nat -S "$chain" 2>/dev/null | wc -l)" == 1 ]]; then
      iptables -t nat -X "$chain" 2>/dev/null || true  # refused while a rule still jumps to it
    fi
  done
  rm -f "$before"
}

cmd_images() {
  podman_tools
  podman_config
  "$REPO_ROOT/scripts/image.sh" build
  dependency_images
  log "KAFKA_IMAGE=$KAFKA_IMAGE REDIS_IMAGE=$REDIS_IMAGE"
}

cmd_up() {
  cmd_images
  log "starting project $COMPOSE_PROJECT_NAME (gateway on 127.0.0.1:${GATEWAY_PUBLISHED_PORT:-30779})"
  [[ -f "$CONTEXTS/chains.$COMPOSE_PROJECT_NAME" ]] || netavark_chains >"$CONTEXTS/chains.$COMPOSE_PROJECT_NAME"
  compose up --detach >"$CONTEXTS/up.log" 2>&1 || {
    log_tail "$CONTEXTS/up.log"
    die "podman-compose up failed"
  }
}

cmd_down() {
  podman_config
  local left
  if [[ -n "$(project_containers)" ]]; then
    log "stopping project $COMPOSE_PROJECT_NAME"
    compose down --volumes --timeout 10 >"$CONTEXTS/down.log" 2>&1 || log_tail "$CONTEXTS/down.log"
  fi
  left="$(project_containers)"
  [[ -z "$left" ]] || die "containers of $COMPOSE_PROJECT_NAME are left: $left"
  podman network rm --force "${COMPOSE_PROJECT_NAME}_default" >/dev/null 2>&1 || true
  drop_leaked_chains
  log "nothing of $COMPOSE_PROJECT_NAME is left"
}

cmd_env() {
  podman_config
  dependency_images
  podman_env
  printf 'KAFKA_IMAGE=%s\nREDIS_IMAGE=%s\nCOMPOSE_PROJECT_NAME=%s\n' "$KAFKA_IMAGE" "$REDIS_IMAGE" \
    "$COMPOSE_PROJECT_NAME"
}

mkdir -p "$CONTEXTS"
case "${1:-}" in
  images) cmd_images ;;
  up) cmd_up ;;
  down) cmd_down ;;
  ps) podman_config && podman ps --all --filter "label=io.podman.compose.project=$COMPOSE_PROJECT_NAME" ;;
  env) cmd_env ;;
  *) die "usage: $0 images|up|down|ps|env" ;;
esac

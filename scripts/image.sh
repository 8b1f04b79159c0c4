#!/usr/bin/env bash
# Builds deploy/docker/Dockerfile into context-loader-mesh:dev without a Docker daemon (podman),
# tags it with the chart's appVersion too, and writes the OCI archive dist/context-loader-mesh.oci.tar.
#
# Usage: scripts/image.sh [build|base|env|clean]
#   build   (default) tools, podman config, base images, the image, the OCI archive
#   base    only the base images
#   env     print the environment (KEY=VALUE lines) that points podman at this checkout's state
#   debian-base NAME PACKAGE...   make (or reuse) a base of Debian packages; prints its image name
#   clean   remove the images, containers and networks of this checkout's podman state
#
# Where an image registry answers, the build starts from the official Python image
# (PYTHON_IMAGE, python:3.11-slim). Where none does, two bases are made from Debian packages
# with mmdebstrap: a build base (Python with venv and pip, binutils to strip the venv) and a
# smaller runtime base (Python, bubblewrap, util-linux's setpriv; no pip, no docs, no apt lists).
# Their tarballs are cached under .cache/image, keyed by the recipe, and reused while it is
# unchanged.
#
# Environment (all optional):
#   IMAGE (context-loader-mesh:dev)  IMAGE_ARCHIVE (dist/context-loader-mesh.oci.tar)
#   IMAGE_BASE (auto | debian | official)   PYTHON_IMAGE (python:3.11-slim)
#   DEBIAN_SUITE (bookworm)  DEBIAN_MIRROR (a Debian mirror URL; default: this machine's own apt
#   sources, else mmdebstrap's default mirror)
#   IMAGE_BUILD_VOLUMES  extra `podman build -v` mounts, space separated; by default the host's
#                        CA bundle is mounted read-only when it exists (a TLS-intercepting proxy
#                        on some build machines: kept out of the Dockerfile)
set -euo pipefail

LOG_PREFIX="image.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/podman.sh
source "$REPO_ROOT/scripts/podman.sh"

IMAGE="${IMAGE:-context-loader-mesh:dev}"
IMAGE_ARCHIVE="${IMAGE_ARCHIVE:-$REPO_ROOT/dist/context-loader-mesh.oci.tar}"
IMAGE_BASE="${IMAGE_BASE:-auto}"
PYTHON_IMAGE="${PYTHON_IMAGE:-python:3.11-slim}"
DEBIAN_SUITE="${DEBIAN_SUITE:-bookworm}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-}"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
IMAGE_CACHE="$REPO_ROOT/.cache/image"

BUILD_PACKAGES=(python3 python3-venv python-is-python3 ca-certificates binutils)
RUNTIME_PACKAGES=(python3 python-is-python3 ca-certificates bubblewrap)
# Removed from both bases: documentation (the licences stay), man pages, translations, old logs,
# glibc's iconv modules but the Unicode ones (Python brings its own codecs; 9 MB), pydoc's topics.
# (dpkg's path-exclude fails here on packages whose man pages are nested.)
# (mmdebstrap itself empties apt's lists and caches at the end.)
TRIM_HOOK='cd "$1" && rm -rf usr/lib/python3*/pydoc_data && find usr/share/doc -type f ! -name copyright -delete && rm -rf usr/share/man/* usr/share/info/* usr/share/locale/* usr/share/lintian/* var/cache/debconf/*-old var/log/*.log && find usr/lib/*/gconv -name "*.so" ! -name "UTF-*" ! -name "UNICODE.so" -delete'

# --- the base images -------------------------------------------------------------------------

registry_answers() {
  timeout 20 skopeo inspect --retry-times 0 "docker://$PYTHON_IMAGE" >/dev/null 2>&1
}

# debian_sources: what mmdebstrap installs from, one argument a line: DEBIAN_MIRROR's suites
# when it is set, else this machine's own apt sources file (how apt reaches Debian here), else
# nothing (mmdebstrap's default mirror).
debian_sources() {
  if [[ -n "$DEBIAN_MIRROR" ]]; then
    printf '%s\n' "deb $DEBIAN_MIRROR $DEBIAN_SUITE main" "deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main" \
      "deb ${DEBIAN_MIRROR%/debian}/debian-security $DEBIAN_SUITE-security main"
    return
  fi
  local file
  for file in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
    if [[ -s "$file" ]]; then
      printf '%s\n' "$file"
      return
    fi
  done
}

# debian_recipe NAME PACKAGES...: everything that decides the content of a base (its cache key).
debian_recipe() {
  local name="$1"
  shift
  printf 'name=%s suite=%s sources=%s\npackages=%s\ntrim=%s\nmmdebstrap=%s\n' "$name" \
    "$DEBIAN_SUITE" "$(debian_sources)" "$*" "merged-usr $TRIM_HOOK" "$(mmdebstrap --version 2>/dev/null)"
}

# debian_base NAME PACKAGES...: prints the local image name of a base made from PACKAGES,
# making it (mmdebstrap, then podman import) when its cached tarball is missing.
debian_base() {
  local name="$1" key tarball image started
  shift
  key="$(debian_recipe "$name" "$@" | sha256sum | cut -c1-12)"
  tarball="$IMAGE_CACHE/$name-$key.tar"
  image="localhost/context-loader-$name:$key"
  if [[ ! -f "$tarball" ]]; then
    started=$SECONDS
    log "making the $name base from Debian packages ($*)" >&2
    mkdir -p "$IMAGE_CACHE"
    # merged-usr hook: the /usr symlinks without the usrmerge package, which pulls in all of Perl
    local opts=(--variant=minbase --format=tar --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr --include="$(IFS=,; echo "$*")"
      --aptopt='Dir::Cache::pkgcache ""' --aptopt='Dir::Cache::srcpkgcache ""'
      --aptopt='APT::Install-Recommends "false"'
      --customize-hook="$TRIM_HOOK")
    local sources=()
    mapfile -t sources < <(debian_sources)
    if ! mmdebstrap "${opts[@]}" "$DEBIAN_SUITE" "$tarball.tmp" "${sources[@]}" \
      >"$IMAGE_CACHE/$name.log" 2>&1; then
      rm -f "$tarball.tmp"
      log_tail "$IMAGE_CACHE/$name.log" 20
      die "mmdebstrap could not make the $name base (log: ${IMAGE_CACHE#"$REPO_ROOT"/}/$name.log)"
    fi
    mv "$tarball.tmp" "$tarball"
    find "$IMAGE_CACHE" -maxdepth 1 -name "$name-*.tar" ! -name "${tarball##*/}" -delete
    log "$name base made in $((SECONDS - started))s" >&2
  fi
  if ! podman image exists "$image"; then
    podman images --noheading --format '{{.Repository}}:{{.Tag}}' "localhost/context-loader-$name" |
      xargs -r podman rmi --force >/dev/null 2>&1 || true  # older recipes
    log "importing the $name base as $image" >&2
    podman import --quiet --change 'CMD ["python3"]' "$tarball" "$image" >/dev/null
  fi
  printf '%s\n' "$image"
}

# choose_bases: sets BUILD_IMAGE and RUNTIME_IMAGE for the Dockerfile's build arguments.
choose_bases() {
  local base="$IMAGE_BASE"
  if [[ "$base" == auto ]]; then
    if registry_answers; then base=official; else base=debian; fi
  fi
  case "$base" in
    official)
      log "an image registry answers: building on $PYTHON_IMAGE"
      podman pull --quiet "docker://$PYTHON_IMAGE" >/dev/null
      BUILD_IMAGE="$PYTHON_IMAGE"
      RUNTIME_IMAGE="$PYTHON_IMAGE"
      ;;
    debian)
      log "no image registry answers (or IMAGE_BASE=debian): bases from Debian $DEBIAN_SUITE packages"
      BUILD_IMAGE="$(debian_base build "${BUILD_PACKAGES[@]}")"
      RUNTIME_IMAGE="$(debian_base runtime "${RUNTIME_PACKAGES[@]}")"
      ;;
    *) die "IMAGE_BASE must be auto, debian or official (got '$IMAGE_BASE')" ;;
  esac
}

# --- the image -------------------------------------------------------------------------------

chart_app_version() {
  sed -n -e 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$REPO_ROOT/deploy/helm/context-loader/Chart.yaml"
}

image_version() {
  local version
  version="$(sed -n -e 's/^version *= *"\(.*\)"/\1/p' "$REPO_ROOT/libs/common/pyproject.toml" | head -n 1)"
  printf '%s\n' "${version:-0.0.0}"
}

build_image() {
  local started=$SECONDS volumes=() revision created app_version
  if [[ -n "${IMAGE_BUILD_VOLUMES:-}" ]]; then
    read -r -a volumes <<<"$IMAGE_BUILD_VOLUMES"
  elif [[ -f "$CA_BUNDLE" ]]; then
    volumes=("$CA_BUNDLE:$CA_BUNDLE:ro")
  fi
  mkdir -p "$IMAGE_CACHE/pip"  # pip's wheel cache, kept between builds
  volumes+=("$IMAGE_CACHE/pip:/var/cache/pip-host")
  revision="$(git -C "$REPO_ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
  if [[ -n "$(git -C "$REPO_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
    revision="$revision-dirty"
  fi
  created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  log "building $IMAGE from deploy/docker/Dockerfile"
  podman build --layers --format oci --file "$REPO_ROOT/deploy/docker/Dockerfile" \
    "${volumes[@]/#/--volume=}" \
    --build-arg "PYTHON_IMAGE=$BUILD_IMAGE" --build-arg "RUNTIME_IMAGE=$RUNTIME_IMAGE" \
    --build-arg "VERSION=$(image_version)" --build-arg "PIP_CACHE_OPTION=--cache-dir=/var/cache/pip-host" \
    --label "org.opencontainers.image.revision=$revision" --label "org.opencontainers.image.created=$created" \
    --tag "$IMAGE" "$REPO_ROOT" >"$IMAGE_CACHE/build.log" 2>&1 || { log_tail "$IMAGE_CACHE/build.log" 30; die "podman build failed (log: ${IMAGE_CACHE#"$REPO_ROOT"/}/build.log)"; }
  app_version="$(chart_app_version)"
  if [[ -n "$app_version" && "${IMAGE%:*}" == context-loader-mesh ]]; then
    podman tag "$IMAGE" "context-loader-mesh:$app_version"  # what the chart's default image names
  fi
  log "built $IMAGE in $((SECONDS - started))s: $(podman image inspect --format '{{.Size}}' "$IMAGE" |
    awk '{printf "%.0f MB", $1 / 1e6}')"
}

# The archive names the image as the chart's default does (context-loader-mesh:<appVersion>).
write_archive() {
  local started=$SECONDS reference="$IMAGE" app_version
  app_version="$(chart_app_version)"
  if [[ -n "$app_version" && "${IMAGE%:*}" == context-loader-mesh ]]; then
    reference="context-loader-mesh:$app_version"
  fi
  mkdir -p "$(dirname "$IMAGE_ARCHIVE")"
  rm -f "$IMAGE_ARCHIVE"
  skopeo copy --quiet "containers-storage:localhost/$IMAGE" \
    "oci-archive:$IMAGE_ARCHIVE:$reference" >/dev/null
  log "wrote ${IMAGE_ARCHIVE#"$REPO_ROOT"/} ($reference, $(du -m "$IMAGE_ARCHIVE" | cut -f1) MB) in $((SECONDS - started))s"
}

cmd_clean() {
  podman_config
  podman rm --all --force >/dev/null 2>&1 || true
  podman pod rm --all --force >/dev/null 2>&1 || true
  podman network prune --force >/dev/null 2>&1 || true
  podman image prune --all --force >/dev/null 2>&1 || true
  log "removed this checkout's containers, networks and images (base tarballs stay in ${IMAGE_CACHE#"$REPO_ROOT"/})"
}

case "${1:-build}" in
  build)
    podman_tools
    podman_config
    choose_bases
    build_image
    write_archive
    ;;
  base)
    podman_tools
    podman_config
    choose_bases
    log "build base: $BUILD_IMAGE, runtime base: $RUNTIME_IMAGE"
    ;;
  env) podman_env ;;
  debian-base)
    (($# >= 3)) || die "usage: $0 debian-base NAME PACKAGE..."
    podman_tools
    podman_config
    debian_base "${@:2}"
    ;;
  clean) cmd_clean ;;
  *) die "usage: $0 [build|base|env|clean]" ;;
esac

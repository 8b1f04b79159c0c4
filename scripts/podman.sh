# shellcheck shell=bash
# Podman kept inside the checkout: sourced by scripts/image.sh and scripts/compose.sh (after
# lib.sh). Every piece of podman's state (images, containers, networks, events, locks) lives
# under .cache/podman, and the machine's global podman configuration is never written.
#
# The containers.conf written here carries this machine's quirks (docs/operations, "The image"):
# runc because crun refuses a hybrid cgroup layout, cgroupfs because there is no systemd, and
# explicit ulimits because root lacks CAP_SYS_RESOURCE to raise podman's defaults.

PODMAN_DIR="${PODMAN_DIR:-$REPO_ROOT/.cache/podman}"
export CONTAINERS_CONF="$PODMAN_DIR/containers.conf"
export CONTAINERS_STORAGE_CONF="$PODMAN_DIR/storage.conf"
export CONTAINERS_REGISTRIES_CONF="${CONTAINERS_REGISTRIES_CONF:-/etc/containers/registries.conf}"
export XDG_RUNTIME_DIR="$PODMAN_DIR/xdg-run"
export XDG_CONFIG_HOME="$PODMAN_DIR/xdg-config"
export XDG_DATA_HOME="$PODMAN_DIR/xdg-data"
export TMPDIR="${PODMAN_TMPDIR:-$PODMAN_DIR/tmp}"

PODMAN_PACKAGES=(podman buildah skopeo mmdebstrap runc uidmap slirp4netns
  containernetworking-plugins iptables netavark aardvark-dns)

# podman_tools: podman, buildah, skopeo and mmdebstrap (apt-get when missing; root + apt only).
podman_tools() {
  local tool missing=()
  for tool in podman buildah skopeo mmdebstrap runc; do
    command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  ((${#missing[@]} == 0)) && return 0
  if can_apt_install; then
    apt_install "${PODMAN_PACKAGES[@]}" || true
    hash -r
  fi
  for tool in "${missing[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null 2>&1 ||
      die "'$tool' is required; install it with: apt-get install -y ${PODMAN_PACKAGES[*]}"
  done
}

# podman_config: writes containers.conf and storage.conf under .cache/podman (when changed).
podman_config() {
  mkdir -p "$PODMAN_DIR"/{storage,run,tmp,networks,xdg-run,xdg-config,xdg-data}
  chmod 700 "$PODMAN_DIR/xdg-run"
  _write_if_changed "$CONTAINERS_CONF" <<EOF
# written by scripts/podman.sh: podman state of this checkout only
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$PODMAN_DIR/events.log"
tmp_dir = "$PODMAN_DIR/tmp/libpod"
volume_path = "$PODMAN_DIR/storage/volumes"
static_dir = "$PODMAN_DIR/storage/libpod"

[network]
network_backend = "netavark"
network_config_dir = "$PODMAN_DIR/networks"
EOF
  _write_if_changed "$CONTAINERS_STORAGE_CONF" <<EOF
# written by scripts/podman.sh: podman state of this checkout only
[storage]
driver = "overlay"
runroot = "$PODMAN_DIR/run"
graphroot = "$PODMAN_DIR/storage"
EOF
}

# podman_env: the environment lines a test or a shell needs to use this podman (KEY=VALUE).
podman_env() {
  local name
  for name in CONTAINERS_CONF CONTAINERS_STORAGE_CONF CONTAINERS_REGISTRIES_CONF XDG_RUNTIME_DIR \
    XDG_CONFIG_HOME XDG_DATA_HOME TMPDIR; do
    printf '%s=%s\n' "$name" "${!name}"
  done
}

_write_if_changed() {
  local file="$1" new
  new="$(cat)"
  [[ -f "$file" && "$(cat "$file")" == "$new" ]] && return 0
  printf '%s\n' "$new" >"$file"
}

#!/usr/bin/env bash
# bubblewrap (Debian's `bwrap`) for tool-executor's sandbox (TOOL_EXECUTOR_SANDBOX=bwrap, the
# default): installs it when missing (root + apt only) and checks it can make namespaces.
#
# Usage: scripts/sandbox.sh [install|check]   (default: install, then check)
set -euo pipefail

LOG_PREFIX="sandbox.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install_bwrap() {
  command -v bwrap >/dev/null 2>&1 && return 0
  if can_apt_install; then
    apt_install bubblewrap || true
    hash -r
  fi
  command -v bwrap >/dev/null 2>&1 ||
    die "'bwrap' is required by tool-executor's sandbox; install it with: apt-get install -y bubblewrap (or set TOOL_EXECUTOR_SANDBOX=process on a development machine: not a security boundary)"
}

check_bwrap() {
  local args=(--ro-bind / / --unshare-pid --unshare-net --unshare-ipc --die-with-parent)
  [[ "$(id -u)" == "0" ]] || args+=(--unshare-user)
  bwrap "${args[@]}" -- /bin/true ||
    die "bwrap is installed but cannot create namespaces here (user namespaces or CAP_SYS_ADMIN needed)"
}

case "${1:-all}" in
  install) install_bwrap ;;
  check) check_bwrap ;;
  all) install_bwrap && check_bwrap ;;
  *) die "usage: $0 [install|check]" ;;
esac

#!/usr/bin/env bash
# Debian's `chromium` for the console's real-browser test (tests/integration/console): installs
# it when missing (root + apt only). The test drives it headless over the DevTools protocol;
# no browser is downloaded from anywhere else.
#
# Usage: scripts/chromium.sh   (prints the executable's path)
set -euo pipefail

LOG_PREFIX="chromium.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

find_chromium() {
  command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true
}

if [[ -z "$(find_chromium)" ]]; then
  if can_apt_install; then
    apt_install chromium || true
    hash -r
  fi
fi
exe="$(find_chromium)"
[[ -n "$exe" ]] ||
  die "'chromium' is needed by the console's browser test; install it with: apt-get install -y chromium"
printf '%s\n' "$exe"

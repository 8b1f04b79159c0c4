#!/bin/bash
# The path docker-compose.yml's healthcheck calls in the apache/kafka image. This image has no
# Kafka command-line tools (scripts/kafka.sh fetches the broker only): it checks that the
# broker accepts connections on --bootstrap-server HOST:PORT.
set -euo pipefail
server=""
while (($#)); do
  case "$1" in
    --bootstrap-server) server="$2"; shift 2 ;;
    *) shift ;;
  esac
done
[[ -n "$server" ]] || { echo "usage: $0 --bootstrap-server HOST:PORT" >&2; exit 2; }
exec 3<>"/dev/tcp/${server%:*}/${server##*:}"

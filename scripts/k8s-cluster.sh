#!/usr/bin/env bash
# A loopback Kubernetes control plane for `make k8s-test`: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kwok (fake nodes: pods are scheduled and reported
# Running/Ready, nothing actually runs), all on 127.0.0.1, all processes we own.
#
# Usage: scripts/k8s-cluster.sh build|start|stop|status|env
#   build   build the pinned binaries once from the Go module proxy into .cache/k8s/cluster/bin
#           (the wrapper modules are deploy/local/k8s/{etcd,kube}; kwok by `go install`);
#           one binary at a time (GOFLAGS -p=1 unless K8S_BUILD_FLAGS says otherwise)
#   start   build when needed, generate fresh credentials and keys under the run folder, start
#           the control plane and a fake node, wait until the node is Ready (idempotent)
#   stop    stop every process `start` started, by the pids it recorded (idempotent)
#   status  exit 0 when the API server answers /readyz, 1 otherwise
#   env     print `export KUBECONFIG=...` for the running cluster
#
# Environment (all optional):
#   K8S_RUN_DIR (.run/k8s)   K8S_CACHE_DIR (.cache/k8s/cluster)
#   K8S_ETCD_PORT (free port) K8S_API_PORT (free port): chosen at `start`, kept in the run folder
#   K8S_START_TIMEOUT (120, seconds)   K8S_BUILD_FLAGS (-p=1)
set -euo pipefail

LOG_PREFIX="k8s-cluster.sh"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KUBE_VERSION="v1.36.3"
KWOK_VERSION="v0.8.0"
K8S_CACHE_DIR="${K8S_CACHE_DIR:-$REPO_ROOT/.cache/k8s/cluster}"
K8S_RUN_DIR="${K8S_RUN_DIR:-$REPO_ROOT/.run/k8s}"
K8S_START_TIMEOUT="${K8S_START_TIMEOUT:-120}"
K8S_BUILD_FLAGS="${K8S_BUILD_FLAGS:--p=1}"
BIN_DIR="$K8S_CACHE_DIR/bin"
WRAPPERS="$REPO_ROOT/deploy/local/k8s"
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

# --- build -----------------------------------------------------------------------------------

require_go() {
  command -v go >/dev/null 2>&1 || die "'go' is required to build the control plane (Go 1.26+)"
}

# stamp_of NAME: the text that identifies what NAME was built from (pinned version + sources).
stamp_of() {
  local name="$1"
  case "$name" in
    etcd) cat "$WRAPPERS/etcd/go.mod" "$WRAPPERS/etcd/go.sum" "$WRAPPERS/etcd/main.go" ;;
    kwok) printf 'kwok %s\n' "$KWOK_VERSION" ;;
    *) printf '%s\n' "$KUBE_VERSION" && cat "$WRAPPERS/kube/go.mod" "$WRAPPERS/kube/go.sum" "$WRAPPERS/kube/cmd/$name/main.go" ;;
  esac | sha256sum | cut -d' ' -f1
}

built() {
  local name="$1"
  [[ -x "$BIN_DIR/$name" && -f "$BIN_DIR/$name.stamp" && "$(cat "$BIN_DIR/$name.stamp")" == "$(stamp_of "$name")" ]]
}

build_one() {
  local name="$1" started ldflags pkg major minor
  built "$name" && return 0
  require_go
  mkdir -p "$BIN_DIR"
  started=$SECONDS
  log "building $name (one-time; kube-apiserver takes about 10 min on 2 idle cores)"
  # shellcheck disable=SC2086 # K8S_BUILD_FLAGS is a list of flags
  case "$name" in
    etcd)
      (cd "$WRAPPERS/etcd" && go build $K8S_BUILD_FLAGS -trimpath -o "$BIN_DIR/etcd.tmp" .)
      ;;
    kwok)
      GOBIN="$BIN_DIR/kwok.d" go install $K8S_BUILD_FLAGS -trimpath "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
      mv "$BIN_DIR/kwok.d/kwok" "$BIN_DIR/kwok.tmp" && rmdir "$BIN_DIR/kwok.d"
      ;;
    *)
      pkg="k8s.io/component-base/version"
      IFS=. read -r major minor _ <<<"${KUBE_VERSION#v}"
      ldflags="-s -w -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
      ldflags+=" -X $pkg.gitTreeState=clean"
      (cd "$WRAPPERS/kube" && go build $K8S_BUILD_FLAGS -trimpath -ldflags "$ldflags" -o "$BIN_DIR/$name.tmp" "./cmd/$name")
      ;;
  esac
  mv "$BIN_DIR/$name.tmp" "$BIN_DIR/$name"
  stamp_of "$name" >"$BIN_DIR/$name.stamp"
  log "built $name in $((SECONDS - started)) s"
}

cmd_build() {
  local name
  for name in "${COMPONENTS[@]}"; do
    build_one "$name"
  done
}

# --- credentials and configuration (fresh for every start) ------------------------------------

random_token() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# free_port: a TCP port nothing listens on right now (the kernel picks it).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# write_kubeconfig FILE USER TOKEN
write_kubeconfig() {
  local file="$1" user="$2" token="$3"
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: loopback
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority: $K8S_RUN_DIR/pki/ca.crt
users:
- name: $user
  user:
    token: $token
contexts:
- name: loopback
  context: {cluster: loopback, user: $user, namespace: default}
current-context: loopback
EOF
  chmod 600 "$file"
}

# generate_credentials: a CA, the API server's serving pair, the service-account signing
# pair, one bearer token per component (token auth file) and their kubeconfigs.
generate_credentials() {
  local pki="$K8S_RUN_DIR/pki" admin kcm scheduler kwok
  command -v openssl >/dev/null 2>&1 || die "'openssl' is required (apt-get install -y openssl)"
  mkdir -p "$pki" && chmod 700 "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=loopback-k8s-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" >/dev/null 2>&1
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" >/dev/null 2>&1
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1\n' >"$pki/san.ext"
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 2 -extfile "$pki/san.ext" -out "$pki/apiserver.crt" >/dev/null 2>&1
  openssl genrsa -out "$pki/sa.key" 2048 >/dev/null 2>&1
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" >/dev/null 2>&1
  admin="$(random_token)" kcm="$(random_token)" scheduler="$(random_token)" kwok="$(random_token)"
  # token,user,uid,"groups": the bootstrap RBAC roles of the control-plane users apply
  {
    printf '%s,admin,admin,"system:masters"\n' "$admin"
    printf '%s,system:kube-controller-manager,kcm\n' "$kcm"
    printf '%s,system:kube-scheduler,scheduler\n' "$scheduler"
    printf '%s,kwok,kwok,"system:masters"\n' "$kwok"
  } >"$pki/tokens.csv"
  chmod 600 "$pki"/*
  write_kubeconfig "$K8S_RUN_DIR/kubeconfig" admin "$admin"
  write_kubeconfig "$pki/kcm.kubeconfig" kcm "$kcm"
  write_kubeconfig "$pki/scheduler.kubeconfig" scheduler "$scheduler"
  write_kubeconfig "$pki/kwok.kubeconfig" kwok "$kwok"
}

# --- processes -------------------------------------------------------------------------------

pid_file() { printf '%s/pids/%s.pid' "$K8S_RUN_DIR" "$1"; }

# launch NAME ARGS...: starts $BIN_DIR/NAME ARGS... in the background, logs under the run folder
launch() {
  local name="$1"
  shift
  mkdir -p "$K8S_RUN_DIR/pids" "$K8S_RUN_DIR/logs"
  # setsid: its own session, so a Ctrl-C of the caller does not stop it half-way
  setsid "$BIN_DIR/$name" "$@" >"$K8S_RUN_DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$(pid_file "$name")"
}

# wait_for WHAT SECONDS CMD...: polls CMD until it succeeds; false on timeout.
wait_for() {
  local what="$1" seconds="$2" deadline
  shift 2
  deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      warn "$what did not come up within ${seconds}s"
      return 1
    fi
    sleep 0.3
  done
}

admin_token() { sed -n 's/^\([^,]*\),admin,.*/\1/p' "$K8S_RUN_DIR/pki/tokens.csv"; }
api() {
  curl -sf --cacert "$K8S_RUN_DIR/pki/ca.crt" -H "Authorization: Bearer $(admin_token)" "$@"
}
api_ready() { [[ "$(api "https://127.0.0.1:$API_PORT/readyz")" == "ok" ]]; }
etcd_ready() { curl -sf "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"'; }

fake_node_ready() {
  api "https://127.0.0.1:$API_PORT/api/v1/nodes/kwok-node-0" | python3 -c '
import json, sys
conditions = json.load(sys.stdin).get("status", {}).get("conditions", [])
sys.exit(0 if any(c["type"] == "Ready" and c["status"] == "True" for c in conditions) else 1)'
}

default_service_account() {
  api "https://127.0.0.1:$API_PORT/api/v1/namespaces/default/serviceaccounts/default"
}

create_fake_node() {
  api -X POST -H 'Content-Type: application/json' "https://127.0.0.1:$API_PORT/api/v1/nodes" -d '{
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "kwok-node-0",
                 "annotations": {"kwok.x-k8s.io/node": "fake"},
                 "labels": {"kubernetes.io/hostname": "kwok-node-0", "kubernetes.io/os": "linux",
                            "kubernetes.io/arch": "amd64", "type": "kwok"}},
    "spec": {}
  }'
}

# The TaintNodesByCondition admission gives every new node node.kubernetes.io/not-ready; the
# node-lifecycle controller, which would lift it once kwok reports Ready, is off on this
# fake cluster, so the taint is lifted here (without this no pod is ever scheduled).
untaint_fake_node() {
  api -X PATCH -H 'Content-Type: application/merge-patch+json' \
    "https://127.0.0.1:$API_PORT/api/v1/nodes/kwok-node-0" -d '{"spec": {"taints": []}}' >/dev/null
}

running() { running_pid "$(pid_file "$1")" "$BIN_DIR/$1" >/dev/null 2>&1; }

fail_start() {
  local name
  warn "$1"
  for name in "${COMPONENTS[@]}"; do
    log_tail "$K8S_RUN_DIR/logs/$name.log" 15
  done
  cmd_stop
  exit 1
}

cmd_start() {
  local started name pki="$K8S_RUN_DIR/pki"
  cmd_build
  if running kube-apiserver && cmd_status; then
    log "already running (API on 127.0.0.1:$API_PORT)"
    return 0
  fi
  cmd_stop >/dev/null
  started=$SECONDS
  rm -rf "$K8S_RUN_DIR" && mkdir -p "$K8S_RUN_DIR"
  ETCD_PORT="${K8S_ETCD_PORT:-$(free_port)}"
  ETCD_PEER_PORT="$(free_port)"
  API_PORT="${K8S_API_PORT:-$(free_port)}"
  KCM_PORT="$(free_port)" SCHEDULER_PORT="$(free_port)" KWOK_PORT="$(free_port)"
  printf 'ETCD_PORT=%s\nAPI_PORT=%s\n' "$ETCD_PORT" "$API_PORT" >"$K8S_RUN_DIR/ports.env"
  generate_credentials

  launch etcd --name loopback --data-dir "$K8S_RUN_DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "loopback=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync --log-level warn
  wait_for etcd "$K8S_START_TIMEOUT" etcd_ready || fail_start "etcd did not start"

  launch kube-apiserver --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" --token-auth-file "$pki/tokens.csv" \
    --authorization-mode Node,RBAC --service-cluster-ip-range 10.96.0.0/16 \
    --endpoint-reconciler-type none --cert-dir "$K8S_RUN_DIR/apiserver" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --profiling=false
  wait_for kube-apiserver "$K8S_START_TIMEOUT" api_ready || fail_start "kube-apiserver did not start"

  # the node lifecycle controller would mark the fake node unreachable (nothing sends kubelet
  # heartbeats); node IPAM hands out pod CIDRs nothing routes here
  launch kube-controller-manager --kubeconfig "$pki/kcm.kubeconfig" \
    --controllers '*,-node-ipam-controller,-node-lifecycle-controller' --leader-elect=false \
    --use-service-account-credentials --service-account-private-key-file "$pki/sa.key" \
    --root-ca-file "$pki/ca.crt" --bind-address 127.0.0.1 --secure-port "$KCM_PORT" \
    --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key"
  launch kube-scheduler --kubeconfig "$pki/scheduler.kubeconfig" --leader-elect=false \
    --bind-address 127.0.0.1 --secure-port "$SCHEDULER_PORT"
  launch kwok --kubeconfig "$pki/kwok.kubeconfig" --config "$WRAPPERS/kwok-stages.yaml" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --server-address "127.0.0.1:$KWOK_PORT" --node-ip 127.0.0.1

  wait_for "the fake node" 30 create_fake_node || fail_start "could not create the fake node"
  wait_for "the fake node's Ready status" "$K8S_START_TIMEOUT" fake_node_ready ||
    fail_start "kwok did not make the fake node Ready"
  wait_for "the fake node's taints lifted" 30 untaint_fake_node ||
    fail_start "could not lift the fake node's not-ready taint"
  # pods are refused until the controller-manager created the namespace's service account
  wait_for "the default service account" "$K8S_START_TIMEOUT" default_service_account ||
    fail_start "the controller-manager did not create service accounts"
  for name in "${COMPONENTS[@]}"; do
    running "$name" || fail_start "$name exited"
  done
  log "control plane up in $((SECONDS - started)) s (API https://127.0.0.1:$API_PORT," \
    "KUBECONFIG=${K8S_RUN_DIR#"$REPO_ROOT"/}/kubeconfig)"
}

cmd_stop() {
  local i name
  # reverse start order: kwok and the controllers first, etcd last
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    name="${COMPONENTS[i]}"
    stop_pidfile "$(pid_file "$name")" "$name" "$BIN_DIR/$name" 20
  done
}

cmd_status() {
  [[ -f "$K8S_RUN_DIR/ports.env" && -f "$K8S_RUN_DIR/pki/tokens.csv" ]] || return 1
  # shellcheck source=/dev/null
  source "$K8S_RUN_DIR/ports.env"
  api_ready
}

case "${1:-}" in
  build) cmd_build ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) printf 'export KUBECONFIG=%q\n' "$K8S_RUN_DIR/kubeconfig" ;;
  *) die "usage: $0 build|start|stop|status|env" ;;
esac

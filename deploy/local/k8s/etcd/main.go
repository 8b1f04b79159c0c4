// Command etcd is the upstream etcd server (go.etcd.io/etcd/server/v3) for the loopback
// control plane of `make k8s-test` (scripts/k8s-cluster.sh builds it).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}

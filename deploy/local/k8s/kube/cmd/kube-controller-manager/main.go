// Command kube-controller-manager is the upstream kube-controller-manager built from the k8s.io/kubernetes module for the
// loopback control plane of `make k8s-test` (scripts/k8s-cluster.sh builds it).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	os.Exit(cli.Run(app.NewControllerManagerCommand()))
}

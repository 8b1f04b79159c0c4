// Command seccomp writes the two seccomp profiles the project ships, from containerd's own
// default (the profile a Kubernetes node applies for seccompProfile RuntimeDefault):
//
//   - runtime-default.json: containerd's RuntimeDefault resolved for a container with no
//     capabilities (the chart drops them all), as the container tests apply it;
//   - tool-executor-seccomp.json: the same plus the six calls bubblewrap needs to build
//     tool-executor's sandbox (user, pid, ipc, uts, mount and network namespaces):
//     clone with namespace flags, unshare, mount, umount2, pivot_root and sethostname.
//
// Usage (from the repository root): go run ./tools/seccomp <out-dir-runtime-default> <out-dir-localhost>
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/containerd/containerd/v2/contrib/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// sandboxCalls are what bwrap (user namespace mode, no fresh /proc) needs beyond RuntimeDefault;
// each was shown necessary inside a container (docs/architecture.md, "The sandbox boundary").
var sandboxCalls = []string{"clone", "unshare", "mount", "umount2", "pivot_root", "sethostname"}

func write(path string, profile *specs.LinuxSeccomp) error {
	data, err := json.MarshalIndent(profile, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: seccomp <runtime-default.json> <tool-executor-seccomp.json>")
		os.Exit(2)
	}
	noCapabilities := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{}}}
	base := seccomp.DefaultProfile(noCapabilities)
	if err := write(filepath.Clean(os.Args[1]), base); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sandbox := seccomp.DefaultProfile(noCapabilities)
	sandbox.Syscalls = append(sandbox.Syscalls, specs.LinuxSyscall{
		Names:  sandboxCalls,
		Action: specs.ActAllow,
	})
	if err := write(filepath.Clean(os.Args[2]), sandbox); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

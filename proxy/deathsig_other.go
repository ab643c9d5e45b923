//go:build unix && !linux

package proxy

import "os/exec"

// setDeathSignal does nothing where the kernel has no parent-death signal;
// there an agent outlives a proxy killed with SIGKILL.
func setDeathSignal(*exec.Cmd) {}

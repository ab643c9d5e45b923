//go:build unix && !linux && !freebsd

package agentproc

import "os/exec"

// hasDeathSignal: macOS and the other BSDs have no parent-death signal, so
// a watchdog process does its work (see startWatchdog).
const hasDeathSignal = false

func setDeathSignal(*exec.Cmd) {}

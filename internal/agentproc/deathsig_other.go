//go:build unix && !linux && !freebsd

package agentproc

import "os/exec"

// setDeathSignal does nothing: macOS and the other BSDs have no
// parent-death signal; the watchdog does its work (see startWatchdog).
func setDeathSignal(*exec.Cmd) {}

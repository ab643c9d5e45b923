//go:build race

package e2e

// raceEnabled: the race detector slows encoding/json about tenfold, which
// turns a direct codex-acp 0.13 run's ~1 GB of snapshots into minutes.
const raceEnabled = true

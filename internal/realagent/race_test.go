//go:build race

package realagent_test

// raceEnabled: the race detector slows encoding/json about tenfold, which
// turns the large-output test's ~1 GB of client reads into minutes.
const raceEnabled = true

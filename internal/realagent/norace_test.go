//go:build !race

package realagent_test

const raceEnabled = false

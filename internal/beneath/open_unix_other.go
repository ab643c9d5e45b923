//go:build unix && !linux

package beneath

// openat2Beneath is Linux's; elsewhere a file is opened one component at a
// time.
func openat2Beneath(int, string) (int, bool, error) { return -1, false, nil }

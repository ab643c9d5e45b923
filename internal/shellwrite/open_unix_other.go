//go:build unix && !linux

package shellwrite

// openat2Beneath is Linux's; elsewhere openBeneath opens one component at a time.
func openat2Beneath(int, string) (int, bool, error) { return -1, false, nil }

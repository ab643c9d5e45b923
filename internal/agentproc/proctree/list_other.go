//go:build !linux && !darwin

package proctree

import (
	"errors"
	"fmt"
)

// List is not implemented here: Linux has /proc and macOS its sysctl to
// read without running another program.
func List() ([]Proc, error) {
	return nil, fmt.Errorf("list processes: %w", errors.ErrUnsupported)
}

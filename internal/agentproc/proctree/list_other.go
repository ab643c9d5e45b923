//go:build !linux

package proctree

import (
	"errors"
	"fmt"
)

// List is not implemented here: only Linux has /proc to read without
// running another program.
func List() ([]Proc, error) {
	return nil, fmt.Errorf("list processes: %w", errors.ErrUnsupported)
}

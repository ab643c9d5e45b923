// Package testbin builds the module's commands for tests, each at most once
// per test process, and finds the module's root.
//
// A test package that builds binaries hands its TestMain to Run, which
// removes them when the tests are done:
//
//	func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }
package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	mu    sync.Mutex
	dir   string                // where the binaries go; made on first use
	built = map[string]string{} // package → binary
)

// Run runs the tests, then removes the binaries Build made.
func Run(m *testing.M) int {
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	return code
}

// Build returns the binary of pkg, a package path relative to the module
// root ("./cmd/acp-proxy"), building it the first time it is asked for. A
// failed build fails t.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	bin, err := build(pkg)
	require.NoError(t, err)
	return bin
}

func build(pkg string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if bin, ok := built[pkg]; ok {
		return bin, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "acp-proxy-testbin"); err != nil {
			return "", fmt.Errorf("testbin: %w", err)
		}
	}
	bin := filepath.Join(dir, path.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	built[pkg] = bin
	return bin, nil
}

// ModuleRoot is the directory holding go.mod, at or above the working
// directory (a test's is its package directory).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/testbin"
)

// The tests of this package run the real acp-proxy binary between the test
// client (internal/acpclient) and real agents (internal/realagent), the way
// an editor runs it. It is built once, on first use.

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// proxyBin returns the path of the acp-proxy binary.
func proxyBin(t testing.TB) string { return testbin.Build(t, "./cmd/acp-proxy") }

// tracesDir is testdata/traces of the module.
func tracesDir(t testing.TB) string {
	t.Helper()
	root, err := testbin.ModuleRoot()
	require.NoError(t, err)
	return filepath.Join(root, "testdata", "traces")
}

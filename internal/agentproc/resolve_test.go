//go:build unix

package agentproc

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheCurrentDirectoryIsNeverSearchedForTheAgent(t *testing.T) {
	project, bin := t.TempDir(), t.TempDir()
	for _, dir := range []string{project, bin} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\n"), 0o755))
	}
	t.Chdir(project)

	t.Run("found there alone, it is refused", func(t *testing.T) {
		t.Setenv("PATH", ".")
		_, err := Agent{Argv: []string{"agent"}}.Resolve()
		var se *StartError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, 126, se.Code)
		assert.Equal(t, "agent: found only in the current directory; name it with a path (./agent) to run it", se.Error())
	})
	t.Run("found in PATH too, PATH's is run", func(t *testing.T) {
		t.Setenv("PATH", "."+string(os.PathListSeparator)+bin)
		path, err := Agent{Argv: []string{"agent"}}.Resolve()
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(bin, "agent"), path)
	})
	t.Run("named with a path, it is run", func(t *testing.T) {
		t.Setenv("PATH", bin)
		path, err := Agent{Argv: []string{"./agent"}}.Resolve()
		require.NoError(t, err)
		assert.Equal(t, "./agent", path)
	})
}

// --grace 0 is NoGrace: no wait at all; the zero value is the default.
func TestGraceZeroMeansTheDefaultAndNoGraceMeansNone(t *testing.T) {
	assert.Equal(t, DefaultGrace, Agent{}.grace())
	assert.Equal(t, time.Duration(0), Agent{Grace: NoGrace}.grace())
	assert.Equal(t, 5*time.Second, Agent{Grace: 5 * time.Second}.grace())
}

func TestResolveSaysWhyAnAgentCannotStart(t *testing.T) {
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "not-executable"), []byte("#!/bin/sh\n"), 0o644))
	t.Setenv("PATH", bin)
	cases := []struct {
		argv []string
		code int
		msg  string
	}{
		{nil, 2, "no agent command"},
		{[]string{"no-such-agent"}, 127, "no-such-agent: command not found"},
		{[]string{"not-executable"}, 127, "not-executable: command not found"},
		{[]string{filepath.Join(bin, "not-executable")}, 126, filepath.Join(bin, "not-executable") + ": permission denied"},
	}
	for _, c := range cases {
		_, err := Agent{Argv: c.argv}.Resolve()
		var se *StartError
		require.ErrorAs(t, err, &se, "%q", c.argv)
		assert.Equal(t, c.code, se.Code, "%q", c.argv)
		assert.Equal(t, c.msg, se.Error(), "%q", c.argv)
	}
}

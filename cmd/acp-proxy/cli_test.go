package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// run writes only to the streams it is given: main passes the process's,
// a test or an embedding program its own.
func TestHelpAndVersionAnswerOnTheGivenStdout(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string // how stdout starts
	}{
		"--help":        {[]string{"--help"}, "acp-proxy relays the Agent Client Protocol"},
		"-h":            {[]string{"-h"}, "acp-proxy relays the Agent Client Protocol"},
		"--version":     {[]string{"--version"}, "acp-proxy "},
		"replay --help": {[]string{"replay", "--help"}, "acp-proxy replay"},
		"flags, --help": {[]string{"--stats", "--help"}, "acp-proxy relays the Agent Client Protocol"},
	}
	for name, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 0, code, name)
		assert.True(t, strings.HasPrefix(stdout.String(), c.want), "%s: stdout %q", name, stdout.String())
		assert.Empty(t, stderr.String(), name)
	}
}

package telemetry

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProgramName(t *testing.T) {
	for rawInput, want := range map[string]string{
		`{"command":["/bin/bash","-lc","curl -H 'Authorization: Bearer sk-123' https://x"]}`: "curl",
		`{"command":"export API_KEY=sk-123"}`:                                                "export",
		`{"command":"API_KEY=sk-123 OTHER='a b' ./deploy.sh --prod"}`:                        "deploy.sh",
		`{"command":"/home/alice/bin/tool --token s3cret"}`:                                  "tool",
		`{"command":"/bin/zsh -lc 'cat > /home/alice/notes.txt <<EOF\nsecret\nEOF'"}`:        "cat",
		`{"command":["git","commit","-m","fix the leak"]}`:                                   "git",
		`{"command":"ls -la","description":"List files"}`:                                    "ls",
		`{"command":"(cd /home/alice && make)"}`:                                             "",
		`{"command":"\"/opt/My Tools/run\" x"}`:                                              "run",
		`{"command":"TOKEN=x"}`:                                                              "",
		`{}`:                                                                                 "",
		`{"command":42}`:                                                                     "",
	} {
		assert.Equal(t, want, programName([]byte(rawInput)), rawInput)
	}
}

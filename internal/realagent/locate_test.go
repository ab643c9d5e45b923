package realagent

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// outcomeRecorder is a testing.TB whose Skip and FailNow end only the
// calling goroutine and record which one happened (require reports with
// Errorf, then calls FailNow).
type outcomeRecorder struct {
	testing.TB
	outcome string
}

func (r *outcomeRecorder) Helper() {}

func (r *outcomeRecorder) Skipf(format string, args ...any) {
	r.outcome = "skip: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *outcomeRecorder) Errorf(format string, args ...any) {
	r.outcome = "fatal: " + fmt.Sprintf(format, args...)
}

func (r *outcomeRecorder) FailNow() { runtime.Goexit() }

func TestMissingAgentSkipsUnlessRequired(t *testing.T) {
	for _, tc := range []struct {
		require string
		want    string
	}{
		{"", "skip: "},
		{"0", "skip: "},
		{"1", "fatal: "},
	} {
		t.Setenv(RequireEnv, tc.require)
		rec := &outcomeRecorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			installed(rec, "no-such-agent", "bin/agent")
			rec.outcome = "found"
		}()
		<-done
		if assert.True(t, strings.HasPrefix(rec.outcome, tc.want), "%s=%q: outcome %q, want %q… with an install hint", RequireEnv, tc.require, rec.outcome, tc.want) {
			assert.Contains(t, rec.outcome, "npm install", "%s=%q: outcome %q, want %q… with an install hint", RequireEnv, tc.require, rec.outcome, tc.want)
		}
	}
}

func TestCodexConfig(t *testing.T) {
	got := codexConfig(CodexOptions{ModelBaseURL: "http://127.0.0.1:1/v1", ExtraConfig: "model_reasoning_effort = \"low\"\n"})
	for _, want := range []string{
		`approval_policy = "never"`,
		`sandbox_mode = "danger-full-access"`,
		"model_reasoning_effort = \"low\"\n\n[model_providers.mock]",
		`base_url = "http://127.0.0.1:1/v1"`,
		`wire_api = "responses"`,
		"[features]\nunified_exec = false\n",
	} {
		assert.Contains(t, got, want, "config.toml lacks %q:\n%s", want, got)
	}
}

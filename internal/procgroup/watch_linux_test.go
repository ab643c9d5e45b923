package procgroup

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorsTB is a testing.TB that keeps what Errorf reports.
type errorsTB struct {
	testing.TB
	errs []string
}

func (e *errorsTB) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

func TestWatchFailsTheTestWhenADescendantOutlivesTheProcess(t *testing.T) {
	cases := []struct {
		name   string
		script string
		leaks  bool
	}{
		// setsid: the child leaves every group the test could kill.
		{"a child in a session of its own, left running", `setsid sleep 60 & sleep 0.5`, true},
		{"a child in the same group, left running, that ignores SIGTERM", `sh -c 'trap "" TERM; sleep 60' & sleep 0.5`, true},
		{"a child waited for", `sleep 0.3`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", c.script)
			Set(cmd)
			require.NoError(t, cmd.Start())
			rec := &errorsTB{TB: t}
			check := Watch(rec, cmd.Process.Pid)
			require.NoError(t, cmd.Wait())
			check()
			if !c.leaks {
				assert.Empty(t, rec.errs)
				return
			}
			require.Len(t, rec.errs, 1)
			assert.Contains(t, rec.errs[0], "outlived it (now killed): ")
			assert.Contains(t, rec.errs[0], "(sleep, group ")
			// check killed it, so it is not left for the next test.
			pid := strings.Fields(strings.SplitN(rec.errs[0], ": ", 2)[1])[0]
			var n int
			_, err := fmt.Sscan(pid, &n)
			require.NoError(t, err)
			assert.Eventually(t, func() bool { return !Alive(n) }, outliveGrace, 10*time.Millisecond)
		})
	}
}

package changes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A blob the index names that the repository does not hold (a shallow or
// partial clone, a damaged one) is said as missing, not as a large file.
func TestAMissingBlobIsSaidAsMissing(t *testing.T) {
	dir := tree{files: map[string]string{"a.txt": "alpha\n"}, git: true}.make(t)
	oid := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD:a.txt"))
	sh(t, dir, "rm -f .git/objects/"+oid[:2]+"/"+oid[2:])
	snap := Take(bg, dir, testLimits)
	defer snap.Close()
	sh(t, dir, "echo changed > a.txt")
	r := snap.Changes(bg)
	want := []seen{noDiff(Modified, "a.txt", "its text before the command is not in the repository (object "+oid+" is missing)")}
	if got := summarise(dir, r); !matches(got, want) {
		t.Errorf("got %+v (note %q), want %+v", got, r.Note, want)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(bg, dir, gitEnv(), nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The repository's own configuration names programs git would run for
// status (an fsmonitor hook): the proxy runs none of them in the agent's
// directory.
func TestTheRepositorysFsmonitorHookIsNotRun(t *testing.T) {
	dir := tree{files: map[string]string{"a.txt": "alpha\n"}, git: true}.make(t)
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "git config core.fsmonitor "+hook)
	snap := Take(bg, dir, testLimits)
	sh(t, dir, "echo more >> a.txt")
	snap.Changes(bg)
	snap.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran the repository's fsmonitor hook")
	}
}

// A program git started that keeps its output open (a hook left running)
// does not hold a scan past the timeout: the pipes are closed after
// gitWaitDelay.
func TestAGitCommandIsBoundEvenWhenItsChildHoldsItsOutput(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\nsleep 60 &\nexec sleep 60\n" // a child that keeps stdout and stderr
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	defer func(timeout, delay time.Duration) { gitTimeout, gitWaitDelay = timeout, delay }(gitTimeout, gitWaitDelay)
	gitTimeout, gitWaitDelay = 100*time.Millisecond, 100*time.Millisecond
	done := make(chan error, 1)
	go func() { _, err := git(bg, t.TempDir(), gitEnv(), nil, "status"); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a git killed at its timeout reported no error")
		}
	case <-time.After(20 * time.Second): // far past the bound: the call never returns on its own
		t.Fatal("git did not return once its timeout and wait delay passed")
	}
}

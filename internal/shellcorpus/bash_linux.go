package shellcorpus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Tools are the programs on a sandboxed bash's PATH: those the write forms
// use. Anything else a command runs is not found.
var Tools = []string{"cat", "sed", "tee", "touch", "mkdir"}

// RunTimeout bounds each sandboxed run.
const RunTimeout = 10 * time.Second

// nobody is the user sandboxed commands run as when the benchmark runs as root.
const nobody = 65534

// limits are prlimit's options for a sandboxed run: files of at most 64 MiB,
// 1 GiB of address space, and, run as nobody, at most 64 processes.
func limits() []string {
	l := []string{"--fsize=67108864", "--as=1073741824"}
	if os.Geteuid() == 0 {
		l = append(l, "--nproc=64")
	}
	return l
}

// NewBashRunner returns a Runner that runs real bash in a new network
// namespace (no network), with an environment of PATH (a directory under tmp
// holding only Tools), HOME and LANG, for at most RunTimeout, in its own
// process group, killed whole on timeout, under the limits of prlimit when
// it is installed. Run as root, the command runs as
// user nobody, so that it can write only where nobody can (the sandbox is
// handed to nobody first); run as another user, in a user namespace mapping
// that user. It fails if such a bash cannot be started here.
func NewBashRunner(tmp string) (Runner, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	for _, t := range Tools {
		p, err := exec.LookPath(t)
		if err != nil {
			return nil, err
		}
		if err := os.Symlink(p, filepath.Join(bin, t)); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
	}
	argv := []string{bash}
	if prlimit, err := exec.LookPath("prlimit"); err == nil {
		argv = append(append([]string{prlimit}, limits()...), "--", bash)
	}
	run := func(dir, script string) error { return runBash(argv, bin, dir, script) }
	if err := run(tmp, "true"); err != nil {
		return nil, fmt.Errorf("sandboxed bash: %w", err)
	}
	return run, nil
}

func runBash(argv []string, bin, dir, script string) error {
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "-c", script)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin, "HOME=" + dir, "LANG=C.UTF-8"}
	cmd.SysProcAttr = sandboxAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil // the command's own failure, or its timeout: the files tell
	}
	return err
}

func sandboxAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWNET}
	if os.Geteuid() == 0 {
		a.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
		return a
	}
	a.Cloneflags |= syscall.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	return a
}

// handOver gives the sandbox to the user its commands run as.
func handOver(root string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	return filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
}

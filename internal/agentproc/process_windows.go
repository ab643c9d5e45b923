package agentproc

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// osProcess is the agent's process in a Job Object that kills every
// process in it when its last handle closes. The proxy holds the only
// handle (it is not inheritable), so the agent and whatever it starts
// (npx → node → a native binary) die with the proxy, however the proxy
// ends: TerminateProcess from an editor closes the handle too.
type osProcess struct {
	cmd   *exec.Cmd
	grace time.Duration
	job   windows.Handle
}

func newOSProcess(cmd *exec.Cmd, _ *slog.Logger, grace time.Duration) *osProcess {
	return &osProcess{cmd: cmd, grace: grace}
}

// waitDelay is how long after ending the job exec kills the agent: ending
// the job kills it, so this only bounds a wait that should not happen.
func (p *osProcess) waitDelay() time.Duration { return max(p.grace, time.Nanosecond) }

func (p *osProcess) pid() int { return p.cmd.Process.Pid }

// exitStatus is the agent's status as a shell reports it.
func (p *osProcess) exitStatus() int { return exitCode(p.cmd.ProcessState) }

// adaptCommand runs a .cmd or .bat file (npx.cmd) through cmd.exe with a
// command line quoted for cmd.exe; see batchCommandLine.
func adaptCommand(cmd *exec.Cmd) error {
	if !isBatchFile(cmd.Path) {
		return nil
	}
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	line, err := batchCommandLine(comspec, cmd.Path, cmd.Args[1:])
	if err != nil {
		return err
	}
	cmd.Path = comspec
	sysProcAttr(cmd).CmdLine = line
	return nil
}

func sysProcAttr(cmd *exec.Cmd) *syscall.SysProcAttr {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	return cmd.SysProcAttr
}

// startAndWait starts the agent suspended, puts it in the job, and only
// then lets it run, so no child of the agent can escape the job. It then
// waits for the agent on a goroutine, sending Wait's result on exited.
func (p *osProcess) startAndWait(exited chan<- error) error {
	job, err := newKillOnCloseJob()
	if err != nil {
		return err
	}
	sys := sysProcAttr(p.cmd)
	sys.CreationFlags |= windows.CREATE_SUSPENDED
	// A proxy without a console (started detached) would give the agent
	// a new console window; keep it hidden, as editors do for agents.
	sys.HideWindow = true
	if err := p.cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return err
	}
	pid := uint32(p.cmd.Process.Pid)
	err = assignToJob(job, pid)
	if err == nil {
		err = resumeProcess(pid)
	}
	if err != nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		windows.CloseHandle(job)
		return err
	}
	p.job = job
	go func() { exited <- p.cmd.Wait() }()
	return nil
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("job object: kill on close: %w", err)
	}
	return job, nil
}

func assignToJob(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("job object: open agent: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("job object: assign agent: %w", err)
	}
	return nil
}

// resumeProcess resumes the suspended main thread of process pid. os/exec
// does not hand out the thread handle CreateProcess returned, so the
// thread is found in a snapshot of the system's threads.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resume agent: snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("resume agent: open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume agent: thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("resume agent: threads: %w", err)
	}
	if resumed == 0 {
		return errors.New("resume agent: no thread found")
	}
	return nil
}

func (p *osProcess) terminateName() string { return "end job" }

// terminate ends the agent and everything in its job. Windows has no
// SIGTERM: a console control event would reach every process on the
// console, the proxy and the editor's included, and a process without a
// console gets none.
func (p *osProcess) terminate() error {
	return windows.TerminateJobObject(p.job, 1)
}

// forward does not pass signals on: Ctrl-C and Ctrl-Break (SIGINT to Go)
// and closing the console (SIGTERM) reach the agent directly, since it
// shares the proxy's console. The proxy only has to stay alive, and
// receiving the signal at all (signal.Notify) is what keeps it alive.
func (p *osProcess) forward(log *slog.Logger, s os.Signal) {
	log.Info("signal not forwarded: the agent receives console events itself", "signal", s)
}

// endGroup ends what the agent left running in its job once it has exited:
// Windows has no polite step to give it, so it dies now, as the agent's
// shutdown would have ended it.
func (p *osProcess) endGroup(time.Duration) {
	if p.job != 0 {
		_ = windows.TerminateJobObject(p.job, 1)
	}
}

// release closes the job: whatever the agent left running dies now.
func (p *osProcess) release() {
	if p.job != 0 {
		windows.CloseHandle(p.job)
		p.job = 0
	}
}

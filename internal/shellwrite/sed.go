package shellwrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// sedCall is a `sed -i` command without its files: what GNU sed is given to compute each file's
// new text.
type sedCall struct {
	options []string // -n and -E, each at most once
	scripts []string // the -e scripts in order, or the one script given without -e
	viaE    bool     // the scripts were given with -e
}

// parseSedArgs splits the arguments of `sed -i …` as GNU sed's getopt does. Known: -i without a
// backup suffix, -n, -E and -r, -e SCRIPT (several), clusters of these (-ni, -Ei), and `--`. Any
// other option, a backup suffix (-i.bak, and -ie, which is the suffix "e") and any file whose
// name starts with '-' (getopt would take a later one for an option) are refused.
func parseSedArgs(args []string) (*sedCall, []string, error) {
	sc := &sedCall{}
	inPlace := false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if strings.HasPrefix(a, "--") {
			return nil, nil, fmt.Errorf("option %q", a)
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'n':
				sc.addOption("-n")
			case 'E', 'r':
				sc.addOption("-E")
			case 'i':
				if j+1 < len(a) {
					return nil, nil, fmt.Errorf("backup suffix %q (a second file)", a[j+1:])
				}
				inPlace = true
			case 'e':
				script := a[j+1:]
				if script == "" {
					if i++; i == len(args) {
						return nil, nil, errors.New("-e without a script")
					}
					script = args[i]
				}
				sc.scripts, sc.viaE, j = append(sc.scripts, script), true, len(a)
			default:
				return nil, nil, fmt.Errorf("option -%c", a[j])
			}
		}
	}
	files := args[i:]
	if !sc.viaE {
		if len(files) == 0 {
			return nil, nil, errors.New("no script")
		}
		sc.scripts, files = files[:1], files[1:]
	}
	switch {
	case !inPlace:
		return nil, nil, errors.New("not -i: prints instead of editing")
	case len(files) == 0:
		return nil, nil, errors.New("no file")
	}
	return sc, files, nil
}

func (sc *sedCall) addOption(o string) {
	for _, have := range sc.options {
		if have == o {
			return
		}
	}
	sc.options = append(sc.options, o)
}

// sedTimeout bounds each run of sed: a script can loop forever. The proxy waits for it.
const sedTimeout = 2 * time.Second

// sedMemoryLimit is the shell text that runs sed with at most 256 MiB of address space.
const sedMemoryLimit = `ulimit -v 262144 && exec "$@"`

// sedEnv is one environment sed computes an edit in, and the name its file has there.
type sedEnv struct {
	env  []string
	name string
}

// sedEnvs are the environments sed computes each edit in; the first is the one the agent's sed
// runs in, and every other must give the same output. The agent inherits the proxy's
// environment, so its sed sees the proxy's LANG, LC_* and COLS (agentSedEnv): that is the
// edit's environment. What the proxy cannot see must not matter: a login file may set another
// locale (the C locale, where '.' matches a byte, C.UTF-8, or an installed one whose ranges,
// equivalence classes and case conversion differ: `[a-z]` takes 'é' in en_US.UTF-8, `\U` makes
// 'i' 'İ' in tr_TR.UTF-8), POSIXLY_CORRECT (N on the last line), COLS (the width of `l`), and
// the name sed gives the file (F prints it). A script whose output changes with any of them is
// not computed.
func sedEnvs() []sedEnv {
	agent := agentSedEnv(os.Environ())
	envs := []sedEnv{
		{agent, "input.txt"},
		{[]string{"LC_ALL=C"}, "a"},
		{[]string{"LC_ALL=C.UTF-8"}, "input.txt"},
		{[]string{"LC_ALL=C.UTF-8", "POSIXLY_CORRECT=1"}, "a"},
		{withCOLS(agent), "a"},
	}
	for _, l := range probeLocales() {
		envs = append(envs, sedEnv{[]string{"LC_ALL=" + l}, "a"})
	}
	return envs
}

// agentSedEnv is what of environ decides what the agent's sed writes: the locale (LANG, LC_*,
// and LOCPATH, where glibc finds the locales), POSIXLY_CORRECT and COLS.
func agentSedEnv(environ []string) []string {
	var env []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "LANG", name == "LOCPATH", name == "POSIXLY_CORRECT", name == "COLS", strings.HasPrefix(name, "LC_"):
			env = append(env, kv)
		}
	}
	return env
}

// withCOLS is env with COLS set to another width than env's: `l` wraps its lines at COLS-1, a
// width a login file may change.
func withCOLS(env []string) []string {
	cols := "23"
	out := []string{}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "COLS="); ok {
			if v == cols {
				cols = "31"
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "COLS="+cols)
}

// sedProbeLocales are locales known to change what sed writes where C.UTF-8 does not: en_US's
// collation puts 'é' in `[a-z]` and `[[=e=]]`, tr_TR's case conversion makes 'i' 'İ'. A login
// file may select one of them for the agent's shell: where installed, each must agree.
var sedProbeLocales = []string{"en_US.UTF-8", "tr_TR.UTF-8"}

// probeLocales is those of sedProbeLocales installed here, as `locale -a` lists them (found
// once): glibc runs a locale it does not have as C, and a shell warns about it on stderr.
var probeLocales = sync.OnceValue(func() []string {
	ctx, cancel := context.WithTimeout(context.Background(), sedTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "locale", "-a")
	cmd.Env = []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	installed := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		installed[normalLocale(l)] = true
	}
	var probes []string
	for _, l := range sedProbeLocales {
		if installed[normalLocale(l)] {
			probes = append(probes, l)
		}
	}
	return probes
})

// normalLocale is a locale's name as glibc compares codesets: "en_US.UTF-8" is "en_US.utf8".
func normalLocale(l string) string {
	lang, codeset, ok := strings.Cut(l, ".")
	if !ok {
		return l
	}
	return lang + "." + strings.ToLower(strings.ReplaceAll(codeset, "-", ""))
}

// sedOutput returns what `sed -i` writes to a file holding text: GNU sed's output for it, run
// with --sandbox (no e, r, w: nothing but the file is read or written) in the agent's
// environment, at most maxBytes, when every other environment of sedEnvs agrees.
func sedOutput(sc *sedCall, text []byte, maxBytes int64, b *budget) ([]byte, error) {
	var first []byte
	for i, e := range sedEnvs() {
		out, err := runSed(sc, [][]byte{text}, []string{e.name}, e.env, maxBytes, b)
		if err != nil {
			return nil, err
		}
		if i > 0 && !bytes.Equal(out, first) {
			return nil, fmt.Errorf("sed writes differently with %s and file name %q than in the agent's environment", strings.Join(e.env, " "), e.name)
		}
		first = out
	}
	return first, nil
}

// sedSeparate checks that sed, given several files at once, edits each as if alone: its hold
// space and its q and Q carry over from one file to the next. outputs are sedOutput's for inputs.
func sedSeparate(sc *sedCall, inputs, outputs [][]byte, maxBytes int64, b *budget) error {
	names := make([]string, len(inputs))
	for i := range names {
		names[i] = fmt.Sprintf("f%d", i)
	}
	together, err := runSed(sc, inputs, names, agentSedEnv(os.Environ()), maxBytes*int64(len(inputs)), b)
	if err != nil {
		return err
	}
	if !bytes.Equal(together, bytes.Join(outputs, nil)) {
		return errors.New("sed carries state from one file to the next")
	}
	return nil
}

// runSed runs GNU sed with -s on copies of inputs named names in a temporary directory, and
// returns what it prints: what -i would write to the files, one after the other. The inputs and
// the output count against b, whose deadline ends the run too (nil: no bound but sedTimeout).
func runSed(sc *sedCall, inputs [][]byte, names, env []string, maxBytes int64, b *budget) ([]byte, error) {
	sed, err := gnuSed()
	if err != nil {
		return nil, err
	}
	if err := b.spendSed(inputs); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "shellwrite-sed")
	if err != nil {
		return nil, fmt.Errorf("sed: %w", err)
	}
	defer os.RemoveAll(dir)
	for i, in := range inputs {
		if err := os.WriteFile(filepath.Join(dir, names[i]), in, 0o600); err != nil {
			return nil, fmt.Errorf("sed: %w", err)
		}
	}
	args := append([]string{"--sandbox", "-s"}, sc.options...)
	if sc.viaE {
		for _, s := range sc.scripts {
			args = append(args, "-e", s)
		}
		args = append(args, "--")
	} else {
		args = append(args, "--", sc.scripts[0])
	}
	deadline := time.Now().Add(sedTimeout)
	if b != nil && b.deadline.Before(deadline) {
		deadline = b.deadline
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	// sh sets the memory limit and becomes sed: a script such as `h;:a;G;h;ba` doubles its pattern
	// space each cycle, faster than the timeout.
	limited := append([]string{"-c", sedMemoryLimit, "sh", sed}, args...)
	cmd := exec.CommandContext(ctx, "/bin/sh", append(limited, names...)...)
	cmd.Dir, cmd.Env = dir, env
	stdout := &cappedBuffer{max: maxBytes, cancel: cancel}
	stderr := &cappedBuffer{max: 4096, cancel: cancel}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	switch {
	case b != nil && !time.Now().Before(b.deadline):
		return nil, ErrTooMuchWork
	case stdout.over:
		return nil, fmt.Errorf("sed writes more than %d bytes", maxBytes)
	case err != nil:
		return nil, fmt.Errorf("sed: %w: %s", err, bytes.TrimSpace(stderr.buf.Bytes()))
	case stderr.buf.Len() > 0:
		return nil, fmt.Errorf("sed: %s", bytes.TrimSpace(stderr.buf.Bytes()))
	}
	if err := b.spend(int64(stdout.buf.Len())); err != nil {
		return nil, err
	}
	return stdout.buf.Bytes(), nil
}

// cappedBuffer keeps at most max bytes, and cancels the command that writes more.
type cappedBuffer struct {
	buf    bytes.Buffer
	max    int64
	over   bool
	cancel func()
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if int64(b.buf.Len()+len(p)) > b.max {
		b.over = true
		b.cancel()
		return 0, errors.New("output too large")
	}
	return b.buf.Write(p)
}

// gnuSed returns the sed the agent's shell would find on the proxy's PATH (the agent inherits the
// proxy's environment), checked once: it must be GNU sed with --sandbox. BSD sed (macOS, FreeBSD)
// reads -i and its scripts differently: no sed -i is computed there.
var gnuSed = sync.OnceValues(func() (string, error) { return findGNUSed(os.Getenv("PATH")) })

// findGNUSed looks sed up in the directories of pathList and checks that it is GNU sed.
func findGNUSed(pathList string) (string, error) {
	path := ""
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			// The agent's shell runs elsewhere: its sed may be another.
			return "", fmt.Errorf("sed: relative directory %q on PATH", dir)
		}
		p := filepath.Join(dir, "sed")
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			path = p
			break
		}
	}
	if path == "" {
		return "", errors.New("sed: not found on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), sedTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{"LC_ALL=C"}
	out, err := cmd.Output()
	first, _, _ := bytes.Cut(out, []byte("\n"))
	if name, _, _ := bytes.Cut(first, []byte(" ")); err != nil || !bytes.HasSuffix(name, []byte("sed")) || !bytes.Contains(first, []byte(" (GNU sed) ")) {
		return "", fmt.Errorf("sed: %s is not GNU sed", path)
	}
	probe := exec.CommandContext(ctx, path, "--sandbox", "-n", "p")
	probe.Env = []string{"LC_ALL=C"}
	if err := probe.Run(); err != nil {
		return "", fmt.Errorf("sed: %s has no --sandbox: %w", path, err)
	}
	return path, nil
}

package policy

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
)

// script is what a command line provably runs, as a policy reads it.
type script struct {
	// cmds are the commands it runs (shellwrite.Commands), each read by readCommand; nil when
	// the script cannot be read exactly (known is then the reason).
	cmds []command
	// unknown says why the script cannot be read exactly ("" when it can): nothing then allows it.
	unknown string
	// seen are argvs a deny, ask or stop rule is matched against besides cmds' forms: the literal
	// commands found anywhere in a script that cannot be read exactly (inside $(…), loops,
	// functions, bash -c strings), so that `echo $HOME; git push` is still a git push.
	seen [][]string
}

// command is one command of a script.
type command struct {
	argv []string
	dirs []string // where it may run (absolute)
	// forms are the argvs deny, ask and stop rules are matched against: argv, and the commands it
	// runs when it is a runner (every tail of its arguments: env X, xargs -n1 X, find -exec X),
	// git without its options before the subcommand (git -C dir push is a git push).
	forms [][]string
	// opaque says why no wildcard may allow it ("" when one may): it runs code or a command
	// its words do not show (eval, python -c, xargs, find -exec, git -C …); only a rule that
	// names the whole command line allows it.
	opaque string
	// inner are the scripts it runs through a shell (bash -c SCRIPT), read as scripts.
	inner []script
	// writes are the files it may write (absolute, lexical): redirect targets and the file
	// arguments of the commands that write them (cp, mv, rm, tee, sed -i, touch…).
	writes []string
	reads  []string // files its input redirects read
	devs   []string // redirect targets under /dev (/dev/null): not files a rule is about
}

// maxDepth bounds how many shells inside shells (bash -c "sh -c '…'") a script is read through.
const maxDepth = 4

// readScript reads src, run in the absolute directory dir.
func readScript(src, dir string, depth int) script {
	cmds, err := shellwrite.Commands(src, dir)
	if err != nil {
		return script{unknown: strings.TrimPrefix(err.Error(), "shellwrite: "), seen: looseCommands(src, depth)}
	}
	s := script{}
	for _, c := range cmds {
		s.cmds = append(s.cmds, readCommand(c, depth))
	}
	return s
}

// readArgv reads a command started without a shell (terminal/create): a shell's -c script is
// read as a script.
func readArgv(argv []string, dir string, depth int) script {
	if len(argv) == 0 || argv[0] == "" {
		return script{unknown: "no command"}
	}
	return script{cmds: []command{readCommand(shellwrite.Command{Argv: argv, Dirs: []string{dir}}, depth)}}
}

// readCommand reads one command of a script.
func readCommand(c shellwrite.Command, depth int) command {
	cmd := command{argv: c.Argv, dirs: c.Dirs, forms: [][]string{c.Argv}}
	cmd.redirects(c.Redirs)
	prog := filepath.Base(c.Argv[0])
	args := c.Argv[1:]
	switch {
	case runners[prog] != "":
		cmd.opaque = runners[prog]
		cmd.addTails(args)
		if prog == "eval" {
			cmd.forms = append(cmd.forms, looseCommands(strings.Join(args, " "), depth)...)
		}
	case shells[prog]:
		cmd.shell(args, depth)
	case prog == "git":
		cmd.git(args)
	case prog == "find":
		cmd.find(args)
	default:
		if why := inlineCode(prog, args); why != "" {
			cmd.opaque = why
		}
	}
	cmd.fileArgs(prog, args)
	return cmd
}

// runners are programs that run code or a command their arguments name, and why that matters.
var runners = map[string]string{
	"eval": "eval runs its arguments as a script", "source": "source runs a file as a script",
	".": ". runs a file as a script", "exec": "exec runs its arguments as the command",
	"command": "command runs its arguments as the command", "builtin": "builtin runs its arguments",
	"env": "env runs its arguments as the command", "nohup": "nohup runs its arguments",
	"time": "time runs its arguments", "timeout": "timeout runs its arguments",
	"nice": "nice runs its arguments", "ionice": "ionice runs its arguments",
	"stdbuf": "stdbuf runs its arguments", "setsid": "setsid runs its arguments",
	"sudo": "sudo runs its arguments as another user", "doas": "doas runs its arguments as another user",
	"su": "su runs a shell as another user", "chroot": "chroot runs its arguments",
	"unshare": "unshare runs its arguments", "nsenter": "nsenter runs its arguments",
	"xargs":    "xargs runs its arguments with words read from its input",
	"parallel": "parallel runs its arguments", "watch": "watch runs its arguments",
	"strace": "strace runs its arguments", "ltrace": "ltrace runs its arguments",
	"flock": "flock runs its arguments", "taskset": "taskset runs its arguments",
	"chrt": "chrt runs its arguments", "script": "script runs a shell", "trap": "trap sets code to run later",
	"alias":   "alias changes what later command names run",
	"busybox": "busybox runs the applet its arguments name",
	"awk":     "awk runs its program (system() included)", "gawk": "gawk runs its program (system() included)",
	"mawk": "mawk runs its program (system() included)", "nawk": "nawk runs its program (system() included)",
}

// shells are the shells a command line may start with a script of its own.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true}

// addTails adds every tail of args as a form: the command a runner runs starts at one of them.
func (c *command) addTails(args []string) {
	for i := range args {
		if args[i] != "" {
			c.forms = append(c.forms, args[i:])
		}
	}
}

// shell reads `bash … -c SCRIPT`: exactly [shell, -c|-lc, SCRIPT] is read as a script; any other
// use of a shell runs code the proxy does not see (a file, its input, options).
func (c *command) shell(args []string, depth int) {
	if src, ok := shellwrite.ScriptFromArgv(append([]string{"sh"}, args...)); ok && depth < maxDepth {
		for _, dir := range c.dirs {
			c.inner = append(c.inner, readScript(src, dir, depth+1))
		}
		if !systemProgram(c.argv[0]) {
			c.opaque = c.argv[0] + " is not the system's shell: it may be a program of the project's"
		}
		return
	}
	c.opaque = "a shell started other than as `bash -c SCRIPT` runs code the proxy does not see"
	for _, a := range args {
		c.forms = append(c.forms, looseCommands(a, depth)...)
	}
}

// systemDirs are where a system's programs are: a program named by a path elsewhere (./bash,
// /tmp/x/sh) may be anything.
var systemDirs = []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/opt/homebrew/bin/"}

// systemProgram reports a program named bare (found on PATH) or by a path in systemDirs.
func systemProgram(p string) bool {
	if !strings.Contains(p, "/") {
		return true
	}
	for _, d := range systemDirs {
		if rest, ok := strings.CutPrefix(p, d); ok && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

// gitGlobals are git's options before the subcommand that take a value as the next word.
var gitGlobals = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--exec-path": true, "--config-env": true, "--super-prefix": true, "--list-cmds": true}

// git reads `git [options] SUBCOMMAND …`: with options before the subcommand (-C elsewhere, -c
// core.sshCommand=…, --git-dir) the command is not what its words show to a rule that names
// `git push`; deny rules see it without them.
func (c *command) git(args []string) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if gitGlobals[args[i]] {
			i++
		}
		i++
	}
	if i == 0 {
		return
	}
	c.opaque = "git options before the subcommand (-C, -c, --git-dir…) change what it runs and where"
	if i < len(args) {
		c.forms = append(c.forms, append([]string{"git"}, args[i:]...))
	}
}

// find reads find's actions that run commands or delete files.
func (c *command) find(args []string) {
	for i, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			c.opaque = "find " + a + " runs a command on each file"
			if i+1 < len(args) {
				c.forms = append(c.forms, args[i+1:])
			}
		case "-delete", "-fprint", "-fprintf", "-fls", "-fprint0":
			c.opaque = "find " + a + " writes or deletes files"
		}
	}
}

// inlineCode says why an interpreter's command line runs code it carries (python -c …), or "".
func inlineCode(prog string, args []string) string {
	flags := map[string]bool{}
	switch {
	case strings.HasPrefix(prog, "python"), prog == "pypy", prog == "pypy3":
		flags["-c"] = true
	case prog == "node", prog == "nodejs", prog == "bun", prog == "deno":
		flags["-e"], flags["--eval"], flags["-p"], flags["--print"], flags["eval"] = true, true, true, true, true
	case prog == "perl", prog == "ruby", prog == "lua", prog == "luajit", prog == "Rscript":
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "eE") {
				return prog + " " + a + " runs the code on its command line"
			}
		}
		return ""
	case prog == "php":
		flags["-r"] = true
	default:
		return ""
	}
	for _, a := range args {
		if flags[a] || (prog != "deno" && strings.HasPrefix(a, "-c") && flags["-c"]) {
			return prog + " " + a + " runs the code on its command line"
		}
	}
	return ""
}

// looseCommands are the commands of src whose every word is literal, wherever they stand (inside
// loops, functions, $(…)), with the scripts of the bash -c strings among them: what deny rules
// are matched against when src cannot be read exactly.
func looseCommands(src string, depth int) [][]string {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || depth >= maxDepth {
		return nil
	}
	var out [][]string
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		var argv []string
		for _, w := range call.Args {
			if lit, ok := literalWord(w); ok {
				argv = append(argv, lit)
			} else {
				break
			}
		}
		if len(argv) > 0 {
			out = append(out, argv)
			if shells[filepath.Base(argv[0])] {
				for _, a := range argv[1:] {
					out = append(out, looseCommands(a, depth+1)...)
				}
			}
			if runners[filepath.Base(argv[0])] != "" || filepath.Base(argv[0]) == "find" {
				for i := 1; i < len(argv); i++ {
					out = append(out, argv[i:])
				}
			}
		}
		return true
	})
	return out
}

// literalWord is the value of a word made of literal text and quotes only, as the parser reads
// it: used only to find commands deny rules name, never to allow.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeLit(p.Value))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescapeLit drops the backslashes of an unquoted literal (g\it is git).
func unescapeLit(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

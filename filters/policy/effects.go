package policy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
)

// redirects adds the files c's redirects open, joined to each directory it may run in.
func (c *command) redirects(rs []shellwrite.Redirect) {
	for _, r := range rs {
		switch {
		case r.Writes():
			c.writes = append(c.writes, c.paths(r.Target)...)
		case r.Reads():
			c.reads = append(c.reads, c.paths(r.Target)...)
		}
	}
	c.writes = c.dropDevs(c.writes)
	c.reads = c.dropDevs(c.reads)
}

// dropDevs moves the paths under /dev to c.devs: /dev/null and the terminal are no file a
// rule is about; a write to a disk device is never allowed (see allowsWrites).
func (c *command) dropDevs(paths []string) []string {
	out := paths[:0]
	for _, p := range paths {
		if clean := filepath.Clean(p); clean == "/dev" || strings.HasPrefix(clean, "/dev/") {
			c.devs = append(c.devs, clean)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// paths joins target to each directory c may run in, as text: a '..' after a symlink climbs
// from where the link leads, which only physical tells.
func (c *command) paths(target string) []string {
	if filepath.IsAbs(target) {
		return []string{target}
	}
	out := make([]string, 0, len(c.dirs))
	for _, d := range c.dirs {
		out = append(out, strings.TrimSuffix(d, "/")+"/"+target)
	}
	return out
}

// fileWriters are commands that write, move or remove the files their arguments name, and which
// of their arguments those are.
var fileWriters = map[string]string{
	"rm": "all", "rmdir": "all", "unlink": "all", "touch": "all", "mkdir": "all", "truncate": "all",
	"shred": "all", "chmod": "all", "chown": "all", "chgrp": "all", "tee": "all", "mv": "all",
	"cp": "last", "install": "last", "ln": "last", "rsync": "last", "scp": "last",
	"sed": "in-place", "perl": "in-place", "dd": "of=", "curl": "output", "wget": "output",
}

// fileArgs adds the files prog writes according to its arguments (fileWriters).
func (c *command) fileArgs(prog string, args []string) {
	which := fileWriters[prog]
	if which == "" {
		return
	}
	operands, values := splitOptions(args)
	var named []string
	switch which {
	case "all":
		named = operands
	case "last":
		if n := len(operands); n > 0 {
			named = operands[n-1:]
		}
		named = append(named, values["-t"]...)
		named = append(named, values["--target-directory"]...)
	case "in-place":
		if inPlace(args) {
			named = operands
		}
	case "of=":
		for _, a := range operands {
			if p, ok := strings.CutPrefix(a, "of="); ok {
				named = append(named, p)
			}
		}
	case "output":
		named = append(append(append(named, values["-o"]...), values["-O"]...), values["--output"]...)
		named = append(named, values["--output-document"]...)
	}
	for _, p := range named {
		c.writes = append(c.writes, c.dropDevs(c.paths(p))...)
	}
}

// splitOptions splits args into operands and the values of options that take one, read
// loosely: what may be a file is kept either way.
func splitOptions(args []string) (operands []string, values map[string][]string) {
	values = map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(operands, args[i+1:]...), values
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			k, v, _ := strings.Cut(a, "=")
			values[k] = append(values[k], v)
		case a == "-t" || a == "-o" || a == "-O" || a == "--output" || a == "--target-directory" || a == "--output-document":
			if i+1 < len(args) {
				values[a] = append(values[a], args[i+1])
				i++
			}
		case len(a) > 2 && (strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "-O") || strings.HasPrefix(a, "-t")) && !strings.HasPrefix(a, "--"):
			values[a[:2]] = append(values[a[:2]], a[2:])
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			operands = append(operands, a)
		}
	}
	return operands, values
}

// inPlace reports a sed or perl edit in place (-i, -i.bak, --in-place, -pi…).
func inPlace(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--in-place") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i")) {
			return true
		}
	}
	return false
}

// physical is where the absolute, clean path p lands after symlinks, as the kernel resolves it:
// each existing name is followed (a dangling link too: a write creates its target), and a '..'
// climbs from where that led. Past the first missing name the rest is read as text.
func physical(p string) string { return physicalAt(p, 0) }

// maxLinks bounds the symlinks followed, as the kernel's ELOOP does.
const maxLinks = 40

func physicalAt(p string, links int) string {
	resolved := "/"
	names := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, name := range names {
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		info, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, names[i+1:]...)...)
		}
		if info.Mode()&os.ModeSymlink != 0 && links < maxLinks {
			target, err := os.Readlink(next)
			if err == nil {
				if !filepath.IsAbs(target) {
					target = resolved + "/" + target
				}
				// not Join: a '..' after the link climbs from where the link leads
				return physicalAt(target+"/"+strings.Join(names[i+1:], "/"), links+1)
			}
		}
		resolved = next
	}
	return resolved
}

// inside reports whether the absolute path p is dir or below it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

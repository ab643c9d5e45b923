package shellcorpus

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Seed is the text of the files a command edits in place or appends to,
// created before the recogniser and bash see the sandbox: the trajectories
// do not record the files' real text.
var Seed = func() []byte {
	var b bytes.Buffer
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes()
}()

// sandbox is one command's throwaway directory tree. root stands for the
// agent machine's "/" for the paths under the command's top directory.
type sandbox struct {
	root   string
	cwd    string // the command's directory inside root
	top    string // the agent's top directory (e.g. /testbed) that root holds
	script string // the command with top's absolute paths moved under root
}

// newSandbox makes dir the root of a sandbox for e, with the directories and
// seeded files the command names.
func newSandbox(dir string, e Entry) (*sandbox, error) {
	cwd := e.Cwd
	if !filepath.IsAbs(cwd) {
		cwd = "/work"
	}
	top := "/" + strings.SplitN(strings.TrimPrefix(filepath.Clean(cwd), "/"), "/", 2)[0]
	s := &sandbox{root: dir, top: top, cwd: filepath.Join(dir, cwd)}
	s.script = mapTop(e.Command, top, filepath.Join(dir, top))
	if err := os.MkdirAll(s.cwd, 0o755); err != nil {
		return nil, err
	}
	sh, err := shapeOf(s.script)
	if err != nil {
		return nil, err
	}
	bases := []string{s.cwd}
	for _, d := range sh.cdDirs {
		bases = append(bases, s.join(s.cwd, d))
	}
	for _, b := range bases {
		if s.inside(b) {
			if err := os.MkdirAll(b, 0o755); err != nil {
				return nil, err
			}
		}
	}
	for _, w := range sh.writes {
		for _, b := range bases {
			if err := s.prepare(s.join(b, w.path), w.kind); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// prepare creates path's directory, and seeds the files a write changes
// rather than replaces.
func (s *sandbox) prepare(path string, k kind) error {
	if path == "" || !s.inside(path) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil // a file is in the way: the command meets it too
	}
	if k == kindOverwrite || k == kindOther {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	return os.WriteFile(path, Seed, 0o644)
}

func (s *sandbox) join(base, p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func (s *sandbox) inside(p string) bool {
	return strings.HasPrefix(filepath.Clean(p)+"/", s.root+"/") && filepath.Clean(p) != s.root
}

// mapTop moves the absolute paths under top into newTop: every occurrence of
// top that starts a path (not preceded by a name character) and ends at a
// '/' or a character that cannot be in a name. The recogniser and bash see
// the same moved command.
func mapTop(script, top, newTop string) string {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_.~/-])` + regexp.QuoteMeta(top) + `([/'"\s;&|)]|$)`)
	return re.ReplaceAllString(script, "${1}"+newTop+"${2}")
}

// snapshot reads every regular file under root.
func snapshot(root string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[p] = b
		}
		return nil
	})
	return files, err
}

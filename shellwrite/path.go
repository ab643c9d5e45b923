package shellwrite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// targetPath returns the absolute, cleaned path that `cd cdDir && … > target` writes, run in cwd
// (cdDir "" means no cd). An absolute cdDir or target replaces what comes before it.
//
// '..' is rejected in both: the kernel resolves it after symlinks (a/../f is not f when a is a
// symlink), bash's cd resolves it before them, and filepath.Clean knows neither.
func targetPath(cwd, cdDir, target string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("cwd %q is not absolute", cwd)
	}
	if err := checkPathWord(target); err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	if strings.Trim(target, "0123456789") == "" {
		// bash reads `>0<<EOF` as `>` followed by `0<<EOF`, a heredoc
		// for fd 0; mvdan reads a target "0" (found by FuzzParse).
		return "", fmt.Errorf("target %q is all digits, which bash may read as a file descriptor", target)
	}
	if strings.HasSuffix(target, "/") {
		return "", fmt.Errorf("target %q ends in '/'", target)
	}
	if base := filepath.Base(target); base == "." {
		return "", fmt.Errorf("target %q names a directory", target)
	}
	dir := cwd
	if cdDir != "" {
		if err := checkPathWord(cdDir); err != nil {
			return "", fmt.Errorf("cd: %w", err)
		}
		if strings.HasPrefix(cdDir, "-") {
			return "", fmt.Errorf("cd: %q looks like an option", cdDir)
		}
		dir = joinAbs(dir, cdDir)
	}
	path := joinAbs(dir, target)
	if err := checkPathLengths(path); err != nil {
		return "", err
	}
	if path == "/dev" || strings.HasPrefix(path, "/dev/") {
		// bash opens /dev/tcp/…, /dev/fd/N, /dev/stdout… itself; dash opens files.
		return "", fmt.Errorf("target %q is under /dev", path)
	}
	return path, nil
}

// The limits of Linux (and most file systems): a name of more than nameMax
// bytes or a path of pathMax bytes fails with ENAMETOOLONG, so the shell
// would write nothing (found by FuzzParse).
const (
	nameMax = 255
	pathMax = 4096
)

func checkPathLengths(path string) error {
	if len(path) >= pathMax {
		return fmt.Errorf("path of %d bytes is too long", len(path))
	}
	for _, elem := range strings.Split(path, "/") {
		if len(elem) > nameMax {
			return fmt.Errorf("path component of %d bytes is too long", len(elem))
		}
	}
	return nil
}

// joinAbs returns p if it is absolute, else dir/p, cleaned.
func joinAbs(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// checkPathWord rejects paths that are empty, contain '..' or control characters.
func checkPathWord(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return fmt.Errorf("path %q contains '..'", p)
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("path %q contains a control character", p)
		}
	}
	return nil
}

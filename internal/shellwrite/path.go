package shellwrite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// place is where a command's redirect opens its file, before the filesystem is consulted: the
// directory the redirect runs in (after cd, resolved as the shell's cd does) and the target.
type place struct {
	dir    string   // absolute, clean: cwd, or cd's logical destination
	cdArg  string   // cd's argument, "" without a cd
	dirs   []string // directories that must exist for cd to succeed (see cdDestination)
	target string   // the target word's value
	dotdot bool     // the target has a '..' component: only the filesystem says where it lands
}

// lexical is the target joined to the directory textually, which is where the file lands when
// the target has no '..' (the kernel resolves a/b/f to the same file as the text says).
func (p place) lexical() string { return joinAbs(p.dir, p.target) }

// targetPlace returns where `cd cdDir && … > target` opens its file, run in cwd (cdDir "" means
// no cd). An absolute cdDir or target replaces what comes before it.
//
// cd resolves '..' logically (textually, before symlinks), as bash, dash and zsh do without -P
// and with zsh's default CHASE_DOTS and CHASE_LINKS off; the kernel resolves a target's '..'
// physically (after symlinks), which CheckTarget does.
func targetPlace(cwd, cdDir, target string) (place, error) {
	if !filepath.IsAbs(cwd) {
		return place{}, fmt.Errorf("cwd %q is not absolute", cwd)
	}
	if err := checkPathWord(target); err != nil {
		return place{}, fmt.Errorf("target: %w", err)
	}
	if strings.Trim(target, "0123456789") == "" {
		// bash reads `>0<<EOF` as `>` followed by `0<<EOF`, a heredoc
		// for fd 0; mvdan reads a target "0" (found by FuzzParse).
		return place{}, fmt.Errorf("target %q is all digits, which bash may read as a file descriptor", target)
	}
	if strings.HasSuffix(target, "/") {
		return place{}, fmt.Errorf("target %q ends in '/'", target)
	}
	if base := filepath.Base(target); base == "." || base == ".." {
		return place{}, fmt.Errorf("target %q names a directory", target)
	}
	p := place{dir: filepath.Clean(cwd), target: target, dotdot: hasDotDot(target)}
	if cdDir != "" {
		if err := checkPathWord(cdDir); err != nil {
			return place{}, fmt.Errorf("cd: %w", err)
		}
		var err error
		p.cdArg = cdDir
		if p.dir, p.dirs, err = cdDestination(p.dir, cdDir); err != nil {
			return place{}, fmt.Errorf("cd: %w", err)
		}
	}
	path := p.lexical()
	if err := checkPathLengths(path); err != nil {
		return place{}, err
	}
	if isDev(path) {
		// bash opens /dev/tcp/…, /dev/fd/N, /dev/stdout… itself; dash opens files.
		return place{}, fmt.Errorf("target %q is under /dev", path)
	}
	return p, nil
}

func isDev(path string) bool { return path == "/dev" || strings.HasPrefix(path, "/dev/") }

// cdDestination returns the directory `cd arg` changes to from cwd, as a logical cd computes it:
// arg joined to the shell's $PWD, '..' removing the name before it. It also returns the
// directories the shells check on the way: bash and zsh fail when the name before a '..' is no
// directory (dash does not look), and all fail when the destination is none. CheckTarget checks
// them, so that every shell lands in the same place or none writes.
//
// $PWD is cwd or another path to it through symlinks (a shell keeps an inherited PWD that names
// its directory), so a relative arg whose '..' would climb above it is rejected: its meaning
// depends on which path that is.
func cdDestination(cwd, arg string) (dir string, mustExist []string, err error) {
	switch {
	case strings.HasPrefix(arg, "-"):
		return "", nil, fmt.Errorf("%q looks like an option (or the previous directory)", arg)
	case strings.HasPrefix(arg, "+"):
		return "", nil, fmt.Errorf("%q is a directory stack entry in zsh", arg)
	}
	dir = "/"
	if !filepath.IsAbs(arg) {
		dir = cwd
	}
	depth := 0 // names below cwd, for a relative arg
	for _, elem := range strings.Split(arg, "/") {
		switch elem {
		case "", ".":
		case "..":
			if depth == 0 && !filepath.IsAbs(arg) {
				return "", nil, fmt.Errorf("%q climbs above the directory the shell starts in", arg)
			}
			mustExist = append(mustExist, dir)
			dir = filepath.Dir(dir)
			depth--
		default:
			dir = filepath.Join(dir, elem)
			depth++
		}
	}
	return dir, append(mustExist, dir), nil
}

func hasDotDot(p string) bool {
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return true
		}
	}
	return false
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

// checkPathWord rejects paths that are empty or that a title could not show as they are.
func checkPathWord(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	return checkVisible(p)
}

// checkVisible rejects a path with a character that may not show as what it is, wherever the
// path is shown (a diff's path, a location, the command in a title). It is an allow-list: the
// space U+0020 and letters, marks, numbers, punctuation and symbols, but not those that render
// as nothing or as blank (default-ignorable code points such as U+034F and the Hangul fillers
// U+115F, U+1160, U+3164, U+FFA0; variation selectors U+FE00–U+FE0F, U+E0100–U+E01EF; U+2800),
// spaces other than U+0020, and look-alikes of '.' and '/', which could make one path read as
// another. Controls, format characters (bidi controls such as U+202E, zero-width characters,
// U+FEFF), separators, private-use and unassigned code points are outside the allowed classes.
func checkVisible(p string) error {
	for _, r := range p {
		if !Visible(r) {
			return fmt.Errorf("path %q contains a control character or one invisible, blank or a look-alike: %U", p, r)
		}
	}
	return nil
}

// Visible reports whether r shows as what it is in a path or a title (see checkVisible).
func Visible(r rune) bool {
	if r < utf8.RuneSelf {
		return 0x20 <= r && r < 0x7f
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) &&
		!unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.White_Space) &&
		!blankOrLookAlike[r]
}

// blankOrLookAlike are characters of the allowed classes that render blank, or as '.' or '/'.
var blankOrLookAlike = map[rune]bool{
	0x2800: true,                                           // BRAILLE PATTERN BLANK
	0x115F: true, 0x1160: true, 0x3164: true, 0xFFA0: true, // Hangul fillers (also default-ignorable)
	0x17B4: true, 0x17B5: true, // Khmer inherent vowels (also default-ignorable)
	0x034F: true, // COMBINING GRAPHEME JOINER (also default-ignorable)
	// '.' look-alikes
	0x00B7: true, 0x0387: true, 0x06D4: true, 0x0701: true, 0x0702: true, 0x2024: true, 0x2027: true,
	0x2219: true, 0x22C5: true, 0x2E31: true, 0x2E33: true, 0x3002: true, 0x30FB: true, 0xA4F8: true,
	0xFE52: true, 0xFF0E: true, 0xFF61: true, 0xFF65: true, 0x10101: true,
	// '/' look-alikes, and the overlays that draw one over a letter
	0x0337: true, 0x0338: true, 0x2044: true, 0x2215: true, 0x2571: true, 0x27CB: true, 0x29F8: true,
	0x3033: true, 0xFF0F: true, 0x1735: true, 0x2CC6: true, 0x4E3F: true,
}

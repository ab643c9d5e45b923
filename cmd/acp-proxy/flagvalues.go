package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Flag values that refuse what means nothing: a size is at least one byte,
// a duration is not negative. pflag reports a refused value as one line
// naming the flag.

// sizeUnits are the units a size may have, matched without regard to case.
var sizeUnits = []struct {
	name string
	n    int64
}{
	{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
	{"B", 1},
}

// parseSize reads a whole number of bytes with an optional unit: 65536,
// 64KiB, 64 KiB, 8MiB, 1MB.
func parseSize(s string) (int64, error) {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if len(num) > len(u.name) && strings.EqualFold(num[len(num)-len(u.name):], u.name) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.name)]), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, errors.New("a size is a whole number of bytes, with an optional unit: 65536, 64KiB, 8MiB, 1MB")
	}
	if n <= 0 {
		return 0, errors.New("must be at least 1 byte")
	}
	if n > (1<<62)/mult {
		return 0, errors.New("too large")
	}
	return n * mult, nil
}

// formatSize writes n in the largest binary unit that divides it: 64KiB.
func formatSize(n int64) string {
	for _, u := range sizeUnits[:3] {
		if n >= u.n && n%u.n == 0 {
			return fmt.Sprintf("%d%s", n/u.n, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

// sizeValue is a size flag stored in an int64 or an int.
type sizeValue[T int | int64] struct{ p *T }

func (v sizeValue[T]) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	if int64(T(n)) != n {
		return errors.New("too large")
	}
	*v.p = T(n)
	return nil
}

func (v sizeValue[T]) String() string { return formatSize(int64(*v.p)) }
func (v sizeValue[T]) Type() string   { return "size" }

// sizeVar defines a size flag with default value.
func sizeVar[T int | int64](fs *pflag.FlagSet, p *T, name string, value T, usage string) {
	*p = value
	fs.Var(sizeValue[T]{p}, name, usage)
}

// durationValue is a duration flag that refuses a negative duration and
// stores zero as zero, the flag's own "none" (a filter's or the agent's
// zero value means its default).
type durationValue struct {
	p    *time.Duration
	zero time.Duration
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("a duration is a number with a unit: 100ms, 1.5s, 2m")
	}
	if d < 0 {
		return errors.New("must not be negative")
	}
	if d == 0 {
		d = v.zero
	}
	*v.p = d
	return nil
}

func (v durationValue) String() string {
	if *v.p == v.zero {
		return "0s"
	}
	return v.p.String()
}

func (v durationValue) Type() string { return "duration" }

// durationVar defines a duration flag with default value; 0 on the command
// line is stored as zero.
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, value, zero time.Duration, usage string) {
	*p = value
	fs.Var(durationValue{p, zero}, name, usage)
}

// pathValue is a file path flag whose leading "~/" is the home directory.
// An editor's JSON config has no shell to expand it ("--record",
// "~/acp.jsonl"), so the proxy does, as git does for paths in its config.
type pathValue struct{ p *string }

func (v pathValue) Set(s string) error {
	expanded, err := expandHome(s)
	if err != nil {
		return err
	}
	*v.p = expanded
	return nil
}

func (v pathValue) String() string { return *v.p }
func (v pathValue) Type() string   { return "path" }

// pathVarP defines a path flag (see pathValue).
func pathVarP(fs *pflag.FlagSet, p *string, name, shorthand, usage string) {
	fs.VarP(pathValue{p}, name, shorthand, usage)
}

// expandHome replaces a leading "~" followed by a separator (or alone) with
// the home directory; "~user/" is left as it is, as the proxy cannot look
// users up everywhere.
func expandHome(s string) (string, error) {
	rest, ok := strings.CutPrefix(s, "~")
	if !ok || (rest != "" && rest[0] != '/' && rest[0] != filepath.Separator) {
		return s, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%q: cannot expand ~: %w", s, err)
	}
	return home + rest, nil
}

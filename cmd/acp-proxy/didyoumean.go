package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// didYouMean adds to err, fs's parse error, the flag the user most likely meant when err is
// an unknown flag close to one of fs's: a typo (--recrod), a long flag given one dash
// (-record, which pflag reads as shorthands), or the start of one flag's name (--expand).
func didYouMean(fs *pflag.FlagSet, err error) error {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) {
		return err
	}
	typed := unknown.GetSpecifiedName()
	if group := unknown.GetSpecifiedShortnames(); group != "" {
		typed, _, _ = strings.Cut(group, "=") // -record=x: pflag read the shorthands "record=x"
	}
	if name := closestFlag(fs, typed); name != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, name)
	}
	return err
}

// closestFlag is the name of fs's flag that typed most likely meant, or "": the name itself,
// the one flag it begins, or the one nearest by edits when that is close enough to be a typo
// (one edit in a name of up to four letters, two in a longer one).
func closestFlag(fs *pflag.FlagSet, typed string) string {
	if typed == "" {
		return ""
	}
	var prefixed []string
	best, bestDist := "", 3
	if len(typed) <= 4 {
		bestDist = 2
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if f.Name == typed {
			best, bestDist = f.Name, -1
		}
		if strings.HasPrefix(f.Name, typed) {
			prefixed = append(prefixed, f.Name)
		}
		if d := editDistance(typed, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	if bestDist > 0 && len(prefixed) == 1 && len(typed) >= 3 {
		return prefixed[0]
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, by bytes (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

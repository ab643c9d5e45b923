package changes

import (
	"bufio"
	"bytes"
	"context"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// maxFlagged bounds the files git is told not to look at whose stat a
// before-state keeps.
const maxFlagged = 10_000

// whyFlagged says why a file git is told not to look at has no diff.
const whyFlagged = "git is told to take it as unchanged (assume-unchanged or skip-worktree), so its text before the command is not known"

// flaggedFiles are the files below root that git is told not to look at
// (assume-unchanged, skip-worktree: git status never lists them), with
// their stat, so that a command that changed one has it named.
func flaggedFiles(ctx context.Context, root, prefix string, d *beneath.Dir) map[string]version {
	flagged := map[string]version{}
	_ = gitStream(ctx, root, gitEnv(literal), nil, func(br *bufio.Reader) error {
		for len(flagged) < maxFlagged {
			rec, err := br.ReadSlice(0) // no copy: most records are not kept
			if err == bufio.ErrBufferFull {
				_, _ = br.ReadBytes(0) // a path past the buffer: not flagged here, skipped
				continue
			}
			if err != nil {
				return nil
			}
			// "<tag> <path>\0": lower case, assume-unchanged; S, skip-worktree
			if len(rec) < 3 || !(rec[0] >= 'a' && rec[0] <= 'z' || rec[0] == 'S') {
				continue
			}
			if rel, ok := strings.CutPrefix(string(bytes.TrimSuffix(rec[2:], []byte{0})), prefix); ok {
				v := stat(d, rel)
				v.why = whyFlagged
				flagged[rel] = v
			}
		}
		return nil
	}, "ls-files", "-v", "-z", "--full-name", "--", ".")
	return flagged
}

// flaggedChanged adds to list the files git does not look at whose stat
// changed, unless cands has them already.
func (s *gitSnap) flaggedChanged(d *beneath.Dir, cands map[string]bool, list []candidate) []candidate {
	for rel, before := range s.flagged {
		if cands[rel] || before.sameStat(stat(d, rel)) {
			continue
		}
		before.read = false // only its stat is known
		list = append(list, candidate{rel: rel, before: before})
	}
	return list
}

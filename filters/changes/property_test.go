package changes

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// write is one file written in a generated session: by a call, by the
// user, or by what a call left running after it ended.
type write struct {
	name   string
	by     string // a call's id, "user", or "bg:" and the id of the call that left it
	mtime  time.Time
	during string // the call running as the user wrote, if any
}

// genCall is a call of a generated session: its id and when the proxy
// saw it start and end.
type genCall struct {
	id              string
	announced, ends time.Time
}

// genSession plays one generated session against show-changes and
// returns the files written and the calls.
type genSession struct {
	t      *testing.T
	s      *session
	rng    *rand.Rand
	writes []write
	calls  map[string]*genCall
	n      int
}

func (g *genSession) writeFile(name, by, during string) {
	g.s.run("echo " + name + " > " + name)
	fi, err := os.Stat(filepath.Join(g.s.dir, name))
	require.NoError(g.t, err)
	g.writes = append(g.writes, write{name: name, by: by, mtime: fi.ModTime(), during: during})
}

// gap lets the model think (0–500 ms), the user writing a file in the
// middle of it, sometimes (while call during runs, if any).
func (g *genSession) gap(during string, user bool) {
	d := time.Duration(g.rng.IntN(500)) * time.Millisecond
	if !user || g.rng.IntN(10) >= 4 {
		time.Sleep(d)
		return
	}
	first := time.Duration(g.rng.Int64N(int64(d) + 1))
	time.Sleep(first)
	g.n++
	g.writeFile(fmt.Sprintf("user%d.txt", g.n), "user", during)
	time.Sleep(d - first)
}

func (g *genSession) announce(id string) {
	now := time.Now()
	g.calls[id] = &genCall{id: id, announced: now}
	g.s.agentAt(now, started(id, "run "+id))
}

func (g *genSession) end(id string) {
	now := time.Now()
	g.calls[id].ends = now
	g.s.agentAt(now, ended(id, "completed", "out "+id))
}

// response plays the calls of one model response: one after another,
// the model's delay (0–500 ms) between them, or all at once, overlapping;
// the user writes between and during calls. A call may leave a writer
// running that writes after it ended (not the last call of the session:
// nothing would follow to show it, nor a user's write after it).
func (g *genSession) response(r int, last bool) {
	ids := make([]string, 1+g.rng.IntN(3))
	for i := range ids {
		ids[i] = fmt.Sprintf("r%dc%d", r, i)
	}
	g.gap("", true)
	if g.rng.IntN(10) < 3 { // overlapping
		for _, id := range ids {
			g.announce(id)
		}
		for _, id := range ids {
			g.writeFile(id+".txt", id, "")
			g.gap(id, true)
		}
		for _, id := range ids {
			g.end(id)
		}
		return
	}
	for i, id := range ids {
		final := last && i == len(ids)-1
		if i > 0 {
			g.gap("", true)
		}
		g.announce(id)
		g.writeFile(id+".txt", id, "")
		g.gap(id, true)
		g.end(id)
		if !final && g.rng.IntN(10) < 3 {
			time.Sleep(time.Duration(g.rng.IntN(300)) * time.Millisecond)
			g.writeFile("bg-"+id+".txt", "bg:"+id, "")
		}
	}
}

// mention is a file an update named: the call it was on, and the line.
type mention struct {
	call, line, note string
}

var (
	noteLine   = regexp.MustCompile(`(?m)^- (created|modified|deleted|written) (\S+)(.*)$`)
	updateCall = regexp.MustCompile(`"toolCallId":"([^"]+)"`)
)

// mentions are the files the updates named, by name.
func (g *genSession) mentions() map[string][]mention {
	out := map[string][]mention{}
	for _, raw := range g.s.added() {
		id := strings.TrimSuffix(updateCall.FindStringSubmatch(raw)[1], "-acp-proxy-changes")
		for _, it := range content(g.t, raw) {
			c, _ := it["content"].(map[string]any)
			text, _ := c["text"].(string)
			if !strings.HasPrefix(text, "acp-proxy: ") {
				continue
			}
			for _, m := range noteLine.FindAllStringSubmatch(text, -1) {
				out[m[2]] = append(out[m[2]], mention{call: id, line: m[0], note: text})
			}
		}
	}
	return out
}

// Generated sessions — calls from one response with the model's delays,
// overlapping calls, user writes between and during calls, writers a
// call left running — in git and outside it: every change is shown
// exactly once, on the call that made it or with a note naming that call,
// and never on a call that started after it without saying it was made
// before that call started.
func TestEveryChangeIsShownOnceOnItsCall(t *testing.T) {
	slack := clockSlack
	for seed := uint64(1); seed <= 6; seed++ {
		git := seed%2 == 0
		t.Run(fmt.Sprintf("seed %d git %v", seed, git), func(t *testing.T) {
			g := &genSession{t: t, rng: rand.New(rand.NewPCG(seed, 32)), calls: map[string]*genCall{},
				s: newSession(t, tree{files: map[string]string{"a": "a\n"}, git: git}, &Filter{})}
			responses := 1 + g.rng.IntN(2)
			for r := range responses {
				g.response(r, r == responses-1)
			}
			g.s.agentAt(time.Now(), endTurn)
			g.s.drain()
			shown := g.mentions()
			for _, w := range g.writes {
				ms := shown[w.name]
				if !assert.Len(t, ms, 1, "%s (by %s) is shown once: %v", w.name, w.by, ms) {
					continue
				}
				m, on := ms[0], g.calls[ms[0].call]
				owner := strings.TrimPrefix(w.by, "bg:")
				if g.calls[owner] != nil && owner == w.by {
					assert.True(t, m.call == owner || strings.Contains(m.note, "("+owner+")"),
						"%s, made by %s, is shown on %s, whose note does not name %s: %s", w.name, owner, m.call, owner, m.note)
				}
				before := strings.Contains(m.line, "(changed before this command started")
				switch {
				case on.announced.After(w.mtime.Add(slack)):
					assert.True(t, before, "%s (by %s) is shown on %s, which started after it: %s", w.name, w.by, m.call, m.line)
				case w.mtime.After(on.announced.Add(slack)):
					assert.False(t, before, "%s (by %s) was written after %s started: %s", w.name, w.by, m.call, m.line)
				}
			}
		})
	}
}

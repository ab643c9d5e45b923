package changes

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

type callKey struct{ session, id string }

// call is a tool call in progress.
type call struct {
	key     callKey
	title   string
	kind    string // the latest kind the agent gave it
	cwd     string
	execute bool
	started int64 // the filter's clock when it started
	// announced and ended are when the proxy saw it start and end (Unix
	// nanoseconds; 0: not known): a file's time before the one or after
	// the other is not the command's.
	announced, ended int64
	// content is the last content the client was sent for the call, which
	// the filter's update carries again: an update's content replaces the
	// call's.
	content filters.Kept
	// bigContent: the call's content is past maxContentBytes, not kept; an
	// update without it would replace it, so none is sent (logged).
	bigContent bool
	// others are the calls of the session that ran while this one did (at
	// most maxOthers; moreOthers counts the rest).
	others     []*call
	moreOthers int
	// before is the before-state the call compares with (nil: none, or a
	// replay), and since the moment it stands for.
	before *shared
	since  string
	from   int64 // the filter's clock when before was taken
	// earlier: before is the rest before the one standing (see window);
	// prevFrom is when that one was taken.
	earlier  bool
	prevFrom int64
	own      bool // before was taken for this call alone (no rest stood)
	// writes: the call showed a diff, or is of a kind that changes files
	// (the agent's own edit tool).
	writes bool
}

// startedDuringReports notes c on the reports of its session still being
// made: a report made after c started may hold c's first writes.
func (f *Filter) startedDuringReports(c *call) {
	for _, p := range f.queue.waiting() {
		if p.call.key.session != c.key.session {
			continue
		}
		if len(p.later) < maxOthers {
			p.later = append(p.later, c)
		} else {
			p.moreLater++
		}
	}
}

// unixNano is t in Unix nanoseconds, 0 for the zero time or the epoch (a
// test's clock that stands still).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// maxOthers bounds the calls a call names as run beside it.
const maxOthers = 8

// ranWith notes that o ran while c did.
func (c *call) ranWith(o *call) {
	if len(c.others) < maxOthers {
		c.others = append(c.others, o)
	} else {
		c.moreOthers++
	}
}

// maxContentBytes bounds the content kept per call to send again.
const maxContentBytes = 4 << 20

// keep keeps content, the call's content that m, an update of c, carries
// (nil: none, and the call's stays), to send again; not past
// maxContentBytes.
func (c *call) keep(m *filters.Message, content []byte) {
	if content == nil {
		return
	}
	c.bigContent = len(content) > maxContentBytes
	if c.bigContent {
		c.content = filters.Kept{}
	} else {
		c.content = m.Keep(c.content, content)
	}
}

// forget lets go of what c kept to send again: its update is sent.
func (c *call) forget() { c.content, c.others = filters.Kept{}, nil }

// update follows one tool_call or tool_call_update; when u ends a command
// whose report it queued, and its update can carry the report's diffs (it
// has content, or the call's content is small enough to send again), it
// returns the report.
func (f *Filter) update(m *filters.Message, sid string, u acp.ToolUpdate) *pending {
	f.clock.Add(1)
	c := f.follow(m, sid, u)
	shows := f.noteDiffs(sid, u.Content)
	if c == nil {
		return nil
	}
	c.writes = c.writes || shows || u.Kind == "edit" || u.Kind == "delete" || u.Kind == "move"
	c.keep(m, u.Content)
	if !u.Final() {
		return nil
	}
	c.ended = unixNano(m.Time)
	if p := f.end(c, u.Status); p != nil && (u.Content != nil || !c.bigContent) {
		return p
	}
	return nil
}

// follow returns the call u names, starting to follow it (and, for a
// command, taking the before-state of its session's directory) when it is
// new; nil when it is not followed.
func (f *Filter) follow(m *filters.Message, sid string, u acp.ToolUpdate) *call {
	k := callKey{sid, u.ID}
	c := f.calls[k]
	if c == nil {
		if u.Final() && !isExecute(u) || len(f.calls) >= maxCalls {
			return nil // a call that ends as it starts is followed only when it is a command
		}
		c = &call{key: k, started: f.clock.Load(), cwd: m.Caps.Cwd(sid), announced: unixNano(m.Time)}
		for _, o := range f.calls {
			if o.key.session == sid {
				o.ranWith(c)
				c.ranWith(o)
			}
		}
		f.calls[k] = c
		f.startedDuringReports(c)
	}
	if u.Title != "" { // the latest: claude's first is "Terminal", its next the command
		c.title = u.Title
	}
	if u.Kind != "" {
		c.kind = u.Kind
	}
	if !c.execute && isExecute(u) {
		c.execute = true
		f.startSnapshot(c)
	}
	return c
}

// startSnapshot holds the session's rest for c, or, with none, starts
// taking a before-state of its own.
func (f *Filter) startSnapshot(c *call) {
	if c.cwd == "" {
		return
	}
	w, ok := f.rests.get(c.key.session)
	if ok {
		c.before, c.since, c.from, c.earlier, c.prevFrom = w.snap, w.since, w.at, w.earlier, w.prevAt
		return
	}
	c.from = c.started
	c.since = sinceStart
	if f.Replaying || f.taking >= maxSnapshots {
		return
	}
	f.taking++
	c.before, c.own = f.take(c.key.session, c.cwd), true
}

// end stops following c, which ended with status; a command's report is
// queued, then the rest after it: the end of the turn waits for the one,
// the next command only when it starts before the other is taken. It
// returns the report queued, if any.
func (f *Filter) end(c *call, status string) *pending {
	delete(f.calls, c.key)
	var p *pending
	if c.execute && c.cwd != "" {
		p = f.queueReport(c, status)
	}
	if c.cwd != "" && (c.execute || c.writes) && f.idle(c.key.session) {
		// What it changed is not the next command's: the next compares
		// with the directory as it is now.
		since := sinceLastCommand
		if !c.execute {
			since = sinceLastEdit
		}
		f.rest(c.key.session, c.cwd, since)
	}
	return p
}

// queueReport queues the report of command c, ended with status; nil when
// too many wait.
func (f *Filter) queueReport(c *call, status string) *pending {
	if c.own {
		f.taking--
	}
	if f.queue.reports >= maxQueue {
		f.log().Warn("show-changes: too many calls await their report; this one's changes are not shown",
			"sessionId", c.key.session, "toolCallId", c.key.id)
		if c.before != nil {
			c.before.release()
		}
		return nil
	}
	p := newPending(c, status)
	f.queue.addReport(p)
	if f.Replaying {
		close(p.done) // the trace holds the report
		return p
	}
	f.scans.report(p)
	return p
}

// idle reports whether no command of session sid is running.
func (f *Filter) idle(sid string) bool {
	for _, o := range f.calls {
		if o.key.session == sid && o.execute {
			return false
		}
	}
	return true
}

// endTurn ends the calls of session sid still open when its turn ended:
// cancelled, or never reported ended.
func (f *Filter) endTurn(sid string) {
	f.clock.Add(1)
	var open []*call
	for _, c := range f.calls {
		if c.key.session == sid {
			open = append(open, c)
		}
	}
	slices.SortFunc(open, func(a, b *call) int { return int(a.started - b.started) })
	for _, c := range open {
		f.end(c, "cancelled")
	}
}

// ledger is what diffs a session's client was sent: each path's last
// newText (its hash), and when.
type ledger struct {
	last map[string]shownText
	// aside: the client was told the flag stands aside for the session's
	// directory.
	aside bool
}

// saidAside reports whether session sid's client was told the flag stands
// aside for its directory, and notes that it now is.
func (f *Filter) saidAside(sid string) bool {
	l := f.shown[sid]
	if l == nil {
		l = &ledger{last: map[string]shownText{}}
		f.shown[sid] = l
	}
	said := l.aside
	l.aside = true
	return said
}

type shownText struct {
	hash string
	at   int64
}

// maxLedger bounds the paths a session's ledger holds; past it, it starts
// anew (a diff then may be shown again, never hidden).
const maxLedger = 10_000

// noteDiffs records the diffs content shows, to repeat none of them, and
// reports whether it shows one.
// quotedDiff is in every diff item of a content (its type); a content
// without it shows none. The search goes from quote to quote: a command's
// output, most of what a content holds, has few.
var quotedDiff = []byte(`"diff"`)

func (f *Filter) noteDiffs(sid string, content []byte) (shows bool) {
	if !rawjson.Contains(content, quotedDiff) {
		return false
	}
	_ = rawjson.Elements(content, func(_ int, item []byte) bool {
		if t, _ := rawjson.GetString(item, "type"); t != "diff" {
			return true
		}
		shows = true
		path, okP := rawjson.GetString(item, "path")
		text, okT := rawjson.GetString(item, "newText")
		if okP && okT {
			sum := sha256.Sum256([]byte(text))
			f.remember(sid, path, hex.EncodeToString(sum[:]))
		}
		return true
	})
	return shows
}

// remember records that the client was shown path holding the text of hash.
func (f *Filter) remember(sid, path, hash string) {
	l := f.shown[sid]
	if l == nil || len(l.last) >= maxLedger {
		l = &ledger{last: map[string]shownText{}}
		f.shown[sid] = l
	}
	l.last[path] = shownText{hash: hash, at: f.clock.Load()}
}

// wasShown reports whether the client was shown, since at, a diff leaving
// path with the text of hash.
func (f *Filter) wasShown(sid, path, hash string, at int64) bool {
	l := f.shown[sid]
	if l == nil || hash == "" {
		return false
	}
	s, ok := l.last[path]
	return ok && s.hash == hash && s.at >= at
}

package changes

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Filter is --show-changes. It runs last in the chain, so that it sees
// each call as the client is sent it: the content it re-sends beside its
// diffs is the content the client holds, and a diff the filters before it
// showed (shell-to-patch's verified edits) counts as shown.
//
// Apply follows the calls on the agent→client pump, and Tick and Drain act
// for that direction only, under the same lock: the calls, the hold queue
// and the ledger need no lock of their own. What the client→agent pump
// touches too (the rests, the scanners, the clock) has its own. The scans
// run on each session's scanner and hand their report to a pending entry
// of the hold queue, which Tick sends in the order the calls ended.
type Filter struct {
	// Limits bound what the filter copies and shows; zero: DefaultLimits.
	Limits Limits
	// Replaying: the commands did not run here (replay, view); reports
	// come from the trace's "read" records only.
	Replaying bool
	Log       *slog.Logger // nil: no log
	// Take takes a before-state; nil: the package's Take.
	Take func(ctx context.Context, root string, lim Limits) Snapshot

	disk   filters.Disk
	calls  map[callKey]*call
	queue  holdQueue // ended execute calls whose update is not sent yet, and lines held behind them
	shown  map[string]*ledger
	clock  atomic.Int64 // counts events, to tell what happened while a call ran (both pumps read it)
	taking int          // before-states taken by calls that found no rest, held
	rests  rests        // each session's before-state at rest (both pumps)
	scans  scanners     // the sessions' scans (both pumps ask for them)
	now    time.Time    // the time of the last agent line or Tick
	// parseAll: every line is read the one way, parsed (output is not
	// used); the tests compare the two.
	parseAll bool
}

var (
	_ filters.Filter        = (*Filter)(nil)
	_ filters.Timed         = (*Filter)(nil)
	_ filters.Woken         = (*Filter)(nil)
	_ filters.Closer        = (*Filter)(nil)
	_ filters.Skipper       = (*Filter)(nil)
	_ filters.ClientSkipper = (*Filter)(nil)
)

// Bounds of the filter's memory.
const (
	maxCalls     = 256 // calls followed at once, per connection
	maxSnapshots = 16  // before-states held at once
	maxQueue     = 64  // ended calls awaiting their report
	// maxHold bounds how long the end of a turn (and what follows it)
	// waits for the reports of its commands, and maxHeldBytes what it
	// holds meanwhile; past either, the reports awaited are not sent.
	maxHold      = 3 * time.Second
	maxHeldBytes = 64 << 20
	// drainWait bounds how long the end of the agent's output waits for
	// the reports still being made.
	drainWait = 5 * time.Second
)

func (f *Filter) Name() string { return "show-changes" }

func (f *Filter) limits() Limits {
	if f.Limits == (Limits{}) {
		return DefaultLimits
	}
	return f.Limits
}

func (f *Filter) log() *slog.Logger {
	if f.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return f.Log
}

// Apply follows the tool calls the agent reports; it never changes a
// message.
func (f *Filter) Apply(m *filters.Message, _ filters.Emitter) error {
	if m.Dir != acp.AgentToClient {
		if method, ok := m.MethodAtHead(); ok && f.SkipsClient(method) {
			return nil // not parsed: only a prompt concerns the filter
		}
		if m.Method() == "session/prompt" {
			f.prompted(m)
		}
		return nil
	}
	if !f.queue.holding() && (!matters(m.Raw) || passes(filters.NewGlance(m.Raw))) {
		return nil // a command's output streaming, an agent's message: nothing ends or starts
	}
	f.disk, f.now = m.Disk, m.Time
	if f.calls == nil {
		f.calls, f.shown = map[callKey]*call{}, map[string]*ledger{}
	}
	if !f.queue.holding() && !f.parseAll && f.output(m) {
		return nil
	}
	if sid, ok := m.Caps.TurnEnded(&m.Message); ok {
		f.endTurn(sid)
		if f.queue.awaiting() || f.queue.holding() {
			return f.hold(m, true)
		}
		return nil
	}
	if p := f.follow1(m); p != nil {
		// The update that ends a command waits a moment for its report,
		// to carry its diffs: a client that forgets a call once it
		// completes (codecompanion) draws a later update as a new call.
		f.queue.holdEnd(p, m.Hold())
		return filters.Drop
	}
	if f.queue.holding() {
		return f.hold(m, false)
	}
	return nil
}

// Skips implements filters.Skipper: a line that passes (passes), or in
// which no call can start, end or ask (matters: a command's output
// streaming), while no line is held is one Apply would forward as it is,
// with nothing changed for what follows. While lines are held behind a
// report, or behind the end of a turn, every later line queues behind
// them: none skips.
func (f *Filter) Skips(g filters.Glance) bool {
	return !f.queue.holding() && (passes(g) || g.Notification && g.Line != nil && !matters(g.Line))
}

// output follows an update that carries only a call's output (no status,
// title, kind or input: acp.ToolUpdate.Others is 0) of a call it follows,
// and no diff: a snapshot of a command's output, most of what a command
// sends. It reads the update from the line's head and one walk of the
// update, without parsing the line: such an update cannot end a call, and
// all the filter does with it is keep its content, to send again with the
// call's changes (checked then, item by item). It reports false, having
// done nothing, for any other line, which Apply reads as usual.
func (f *Filter) output(m *filters.Message) bool {
	sid, u, ok := outputOnly(m.Raw)
	if !ok {
		return false
	}
	c := f.calls[callKey{sid, u.ID}]
	if c == nil || m.Caps.Loading(sid) {
		return false
	}
	f.clock.Add(1)
	c.keep(m, u.Content)
	return true
}

// outputOnly reads raw, from its head and one walk of its update, when it
// is a tool_call_update that carries only output and no diff: its
// session's id and the update.
func outputOnly(raw []byte) (sid string, u acp.ToolUpdate, ok bool) {
	h, ok := acp.ReadUpdateHead(raw)
	if !ok || string(h.Kind) != "tool_call_update" {
		return "", u, false
	}
	u, ok = acp.ReadToolUpdateAt(raw, h)
	if !ok || u.Others > 0 || rawjson.Contains(u.Content, quotedDiff) {
		return "", u, false
	}
	return string(h.SessionID), u, true
}

// SkipsClient implements filters.ClientSkipper: of a client's lines, only
// a prompt concerns the filter.
func (f *Filter) SkipsClient(method []byte) bool { return string(method) != "session/prompt" }

// passes reports whether the agent's line cannot concern the filter, from
// a glance at its bytes: a notification or request (no response, so it
// ends no turn) about no tool call (no call starts, ends or asks for
// permission in it).
func passes(g filters.Glance) bool { return g.Notification && !g.Tool }

// follow1 follows the tool call m shows, if any; when m ends a command
// whose report it queued, and can carry that report, it returns it.
func (f *Filter) follow1(m *filters.Message) *pending {
	switch m.Method() {
	case "session/update":
		if m.Caps.Loading(m.SessionID()) {
			return nil // a session/load replays history: those commands ran before
		}
		if u, ok := m.ToolUpdate(); ok {
			return f.update(m, m.SessionID(), u)
		}
	case "session/request_permission":
		if u, ok := m.PermissionCall(); ok && u.ID != "" {
			f.clock.Add(1)
			f.follow(m, m.SessionID(), u)
		}
	}
	return nil
}

// prompted takes the session's rest as its prompt goes to the agent: the
// commands of the turn compare with it.
func (f *Filter) prompted(m *filters.Message) {
	sid := m.SessionID()
	if cwd := m.Caps.Cwd(sid); sid != "" && cwd != "" {
		f.rest(sid, cwd, sincePrompt)
	}
}

// rest has session sid's rest stand for cwd from now.
func (f *Filter) rest(sid, cwd, since string) {
	var start func() *shared
	if !f.Replaying {
		start = func() *shared { return f.take(sid, cwd) }
	}
	f.rests.ask(sid, cwd, since, f.clock.Load(), start)
}

// take queues the take of cwd's before-state on session sid's scanner.
func (f *Filter) take(sid, cwd string) *shared {
	take := f.Take
	if take == nil {
		take = Take
	}
	if why := refused(cwd); why != "" {
		take = takeAside(why)
	}
	return f.scans.take(sid, cwd, take, f.limits())
}

// SetWake has a made report wake the driver, which sends it.
func (f *Filter) SetWake(wake func(acp.Direction)) { f.scans.setWake(wake) }

// Close stops the scans and lets go of every before-state the filter holds
// (a git one keeps the index open): the connection has ended.
func (f *Filter) Close() {
	f.scans.close()
	f.rests.close()
	for _, c := range f.calls {
		if c.before != nil {
			c.before.release()
			c.before = nil
		}
	}
	f.calls = nil
}

// isExecute reports whether u shows a command: its kind, or a shell tool's
// rawInput (an agent's, or one shell-to-patch shows as an edit).
func isExecute(u acp.ToolUpdate) bool {
	if u.Kind == "execute" {
		return true
	}
	_, ok := rawjson.Get(u.RawInput, "command")
	return ok
}

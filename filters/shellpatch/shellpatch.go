package shellpatch

import (
	"bytes"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// DefaultMaxPatchBytes bounds the bytes of the edits shown at once: the
// existing files' text (oldText) and the new text of every live call
// together. A call that does not fit beside the others evicts the oldest.
const DefaultMaxPatchBytes = 4 << 20

// maxShellPatchCalls bounds the calls remembered at once; a call that never
// ends (its final update lost) must not grow the state forever.
const maxShellPatchCalls = 1024

// Filter shows every file a shell command provably writes (`cat <<'EOF' >
// f`, `echo … >> f`, `sed -i`, several in one script) as a diff beside the
// command, and the call as an edit when writing is all it does, the way
// agents show their own edits. The
// recognition is shellwrite's; this filter finds the command in each agent's
// rawInput, checks the target against the session's directory, and keeps
// every later update of the call showing the edit. The title stays the
// command (show.go).
//
// Calls are known by session and toolCallId together, and every message
// that carries a rawInput is judged by that rawInput: a later message whose
// command differs is never shown as the earlier edit.
//
// The rewrite is display-only: the agent still runs the command. Anything
// the filter cannot prove leaves the message byte-identical. What it shows
// is checked after the command ran: when the call ends, each file is read
// again, and an edit the file does not hold is taken back (ending.go); so
// is the edit of a call the filter can no longer keep.
type Filter struct {
	// MaxBytes bounds the bytes held for the edits of all live calls
	// together (see DefaultMaxPatchBytes); 0: DefaultMaxPatchBytes.
	MaxBytes   int64
	OutsideCwd bool // also rewrite writes outside the session's directory
	// Unverified: the commands do not run where the filter runs (replay, view), so a shown
	// edit is not checked against the file when its call ends.
	Unverified bool

	// reading is the agent→client message Apply is working on, whose Disk
	// the filter reads files back through (only that pump sets it).
	reading *filters.Message
	Log     *slog.Logger // warnings: edits taken back; nil: none

	// Only the agent→client pump touches calls, opened, sessions, held and pending.
	calls toolcall.List[call]
	// opened are the v2 calls whose opening update was seen, until they end (v2.go).
	opened   toolcall.List[bool]
	sessions sessions
	held     int64 // bytes of the edits in calls
	// ranSince is when the command of the message being judged may have
	// started running; zero when it provably has not (see writtenSince).
	ranSince time.Time
	pending  [][]byte // updates of the filter's own, sent before the message being filtered

	// approvals: what permission requests showed, until the client answers (approval.go); the
	// one state both pumps touch, under its own lock.
	approvals approvals

	// Counts for --stats, read by another goroutine.
	verified, takenBack, forgotten atomic.Int64
}

// call is what the filter knows of one tool call.
type call struct {
	session, id string
	claude      bool   // claude-agent-acp's (its _meta said so)
	otherTool   bool   // claude's, but not its Bash tool
	edit        *edit  // nil: not shown as an edit (until the call ends: see verify)
	cdDir       string // a claude call's `cd DIR &&`: where it leaves the shell
	root        string // the session's directory when the edit was recognised
	// stale: the client last saw another edit for this call (or one that
	// no longer is), or the call as the agent opened it while only a
	// permission request showed its edit, which its next session/update
	// must restate: an update replaces only the members it carries.
	stale bool
	title []byte // the agent's last title for the call (JSON), for a retraction
	// reported is the bare command the call's last update reported, with
	// its directory: opencode's permission request names only the script.
	reported *command
	tool     *toolInput // opencode's edit or write tool: the input its last update reported
	// judged is the last rawInput the filter read and showed nothing for, with what it found:
	// the same rawInput again is not read again.
	judged *judged
	// unreadable: a message of the call named a command in a shape the filter does not read
	// (an unknown key beside it): where and how the call's command runs is not known.
	unreadable bool
}

// pendingOn reports whether another live call than c shows an edit of one of e's files. That
// edit has not run, or has not been seen to end: the file e was computed from is not the one
// e's command will find if the other runs first, and which runs first is the user's choice
// (two permission requests open at once) or the agent's. e is not shown: a diff that assumes
// an order would be wrong in the other. The reason is logged.
func (s *Filter) pendingOn(e *edit, c *call) bool {
	var other *call
	var file string
	_ = s.calls.Each(func(o *call) error {
		if o == c || o.edit == nil || other != nil {
			return nil
		}
		for _, f := range e.files {
			for _, g := range o.edit.files {
				if f.key == g.key {
					other, file = o, f.path
				}
			}
		}
		return nil
	})
	if other == nil {
		return false
	}
	s.log().Info("shell-to-patch: another call shows an edit of the same file that has not been seen to end; this one is not shown, since its diff depends on which runs first",
		"file", file, "sessionId", other.session, "toolCallId", other.id)
	return true
}

// judged is a rawInput read without an edit to show, and what reading it found.
type judged struct {
	key [sha256.Size]byte
	r   recognised
}

// judgedKey stands for what a recognition depends on besides the disk: the rawInput, the
// directory the command runs in, the session's, and whether the command may have run (a
// message that shows it waiting, a permission request, may show what one that showed it
// running could not).
func judgedKey(rawInput []byte, cmd command, shellCwd, root string, mayHaveRun bool) [sha256.Size]byte {
	h := sha256.New()
	ran := []byte{0}
	if mayHaveRun {
		ran[0] = 1
	}
	for _, part := range [][]byte{rawInput, []byte(cmd.dir), []byte(shellCwd), []byte(root), ran} {
		h.Write(part)
		h.Write([]byte{0})
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// hasCommand reports whether a rawInput names a command.
func hasCommand(rawInput []byte) bool {
	_, ok := rawjson.Get(rawInput, "command")
	return ok
}

// inside reports whether dir is root or below it, by name.
func inside(dir, root string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// edit is a recognised write, fixed when the proxy first saw the command: the files it shows,
// a list so that one command can show several.
type edit struct {
	cmd       command // the command as recognised: a later rawInput must carry the same
	title     []byte  // JSON string: the command's first line
	root      string  // the session's directory, below which the files are read back
	files     []shownFile
	locations []byte // JSON array
	tool      bool   // an agent's own edit tool's (tooledit.go): its title, kind and locations stay
	execute   bool   // the command runs more than the files show: it stays kind execute
	v2        bool   // the diffs are in ACP v2's shape (v2.go), and so is a takeback's
	// changed: a file no longer held the shown oldText when the client answered the permission
	// request (approval.go), why; the edit is not shown again, and is taken back at the end.
	changed string
}

func (e *edit) size() int64 {
	n := len(e.title) + len(e.locations)
	for _, f := range e.files {
		n += len(f.diff) + len(f.path)
		if f.texts != nil {
			n += len(f.texts.old) + len(f.texts.new)
		}
	}
	return int64(n)
}

// session is what the filter knows of a session's agent.
type session struct {
	claude bool // a claude Bash call was seen: bare commands here are claude's
	// shellCwd is where claude's shell is (it keeps its directory between
	// Bash calls), "" when unknown: after a command the filter could not
	// follow, relative paths are not rewritten.
	shellCwd string
	started  bool // shellCwd has been set from the session's directory
	// forgotten: the session may be one whose state was evicted (see
	// sessions): its shell's directory is unknown, and a call the filter
	// does not follow is not judged unless it says it is claude's, as the
	// session may be claude's.
	forgotten bool
	// lastEnd is when the session's last call was seen to end: a file
	// changed before it was not changed by a command that starts after.
	lastEnd time.Time
}

var _ filters.Filter = (*Filter)(nil)

func (*Filter) Name() string { return "shell-to-patch" }

func (s *Filter) limit() int64 {
	if s.MaxBytes <= 0 {
		return DefaultMaxPatchBytes
	}
	return s.MaxBytes
}

var (
	quotedRawInput   = []byte(`"rawInput"`)
	quotedToolCallID = []byte(`"toolCallId"`)
)

func (s *Filter) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Dir == acp.ClientToAgent {
		return s.answer(m, out)
	}
	s.takeChanged()
	s.reading = m
	defer func() { s.reading = nil }()
	if err := s.before(m, out); err != nil {
		return err
	}
	if !s.concerns(m) {
		return out.Emit(m.Dir, m.Raw)
	}
	raw, err := s.rewriteMessage(m)
	if err != nil {
		return err
	}
	if err := s.flush(out); err != nil { // the takebacks of calls this message evicted
		return err
	}
	s.notePermission(m)
	if raw == nil {
		return out.Emit(m.Dir, m.Raw)
	}
	return out.Emit(m.Dir, raw)
}

// before does what m means to the filter before m itself goes on: the
// responses that end turns, loads and resumes, a v2 turn's idle end, and
// the updates of the filter's own they queue, sent first.
func (s *Filter) before(m *filters.Message, out filters.Emitter) error {
	if err := s.answered(m); err != nil {
		return err
	}
	if sid, ok := idle(m); ok {
		if err := s.endV2Turn(m, sid); err != nil {
			return err
		}
	}
	return s.flush(out)
}

// concerns reports whether m may be rewritten: it carries a rawInput, or
// it continues a live call. A message without a rawInput matters only when
// it continues a live call: it then names a toolCallId, which is one map
// lookup away.
func (s *Filter) concerns(m *filters.Message) bool {
	if rawjson.Contains(m.Raw, quotedRawInput) {
		return true
	}
	if isV2(m) && rawjson.Contains(m.Raw, quotedToolCallID) {
		// A v2 call is opened by its first update, which may carry no rawInput: a later
		// one that does then does not open it.
		s.noteOpened(m)
	}
	if s.calls.Len() == 0 || !rawjson.Contains(m.Raw, quotedToolCallID) {
		return false
	}
	u, ok := m.ToolUpdate()
	return ok && s.calls.Get(m.SessionID(), u.ID) != nil
}

// rewriteMessage is m with its call shown as an edit, or nil to leave it
// alone.
func (s *Filter) rewriteMessage(m *filters.Message) ([]byte, error) {
	switch {
	case s.toolEditCall(m):
		return s.toolEdit(m)
	case m.Method() == "session/request_permission" && m.IsRequest():
		if path, ok := permissionPath(m); ok {
			return s.rewrite(m, path, true)
		}
	case m.IsToolUpdate():
		return s.rewrite(m, toolcall.At(), s.openedBy(m))
	}
	return nil, nil
}

// notePermission remembers a permission request that showed an edit: the
// client's answer re-reads what it showed.
func (s *Filter) notePermission(m *filters.Message) {
	if m.Method() != "session/request_permission" || !m.IsRequest() {
		return
	}
	if u, ok := m.PermissionCall(); ok {
		if c := s.calls.Get(m.SessionID(), u.ID); c != nil && c.edit != nil {
			s.asked(m, c)
		}
	}
}

// openedBy reports whether m, a tool call update, opens its call: a v1 tool_call, or the first
// v2 tool_call_update of its id.
func (s *Filter) openedBy(m *filters.Message) bool {
	if !isV2(m) {
		return m.UpdateKind() == "tool_call"
	}
	u, ok := m.ToolUpdate()
	return ok && u.ID != "" && m.SessionID() != "" && s.opens(m.SessionID(), u.ID)
}

// flush sends the updates of the filter's own queued so far.
func (s *Filter) flush(out filters.Emitter) error {
	for len(s.pending) > 0 {
		raw := s.pending[0]
		s.pending = s.pending[1:]
		if err := out.Emit(acp.AgentToClient, raw); err != nil {
			return err
		}
	}
	s.pending = nil
	return nil
}

// answered acts on the agent's response to a client's prompt, load or resume, as the connection's
// tracker tells (capabilities.Negotiated.Answered): the end of a prompt turn settles the session's
// open calls; a turn's end, a load or a resume may move a claude shell.
func (s *Filter) answered(m *filters.Message) error {
	req, ok := m.Caps.Answered(&m.Message)
	if !ok || req.Session == "" {
		return nil
	}
	switch req.Method {
	case "session/new":
		// A session the client just created is none the filter forgot:
		// its state starts now, in the session's directory.
		s.sessions.add(req.Session, &session{})
		s.session(m, req.Session)
		return nil
	case "session/prompt":
		if isV2(m) {
			return nil // a v2 prompt is answered as its turn starts; it ends idle (v2.go)
		}
		if err := s.endTurn(req.Session); err != nil {
			return err
		}
	case "session/load", "session/resume":
	default:
		return nil
	}
	s.carryShell(m, req)
	return nil
}

// note tells the chain's observers (OpenTelemetry) what the filter did to call c: event, and
// why (detail, which may name files). Only the agent→client pump notes, through the message it is
// filtering.
func (s *Filter) note(c *call, event, detail string) {
	m := s.reading
	if m == nil || !m.Noting() {
		return
	}
	n := filters.Note{Filter: s.Name(), Event: event, SessionID: c.session, ToolCallID: c.id, Detail: detail}
	if c.edit != nil {
		n.Files = len(c.edit.files)
	}
	m.Note(n)
}

func (s *Filter) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Counts are the filter's events for --stats: edits whose files held what was shown when their
// call ended, edits taken back, and edits dropped (and taken back) for the memory bound.
func (s *Filter) Counts() map[string]int64 {
	return map[string]int64{"editsVerified": s.verified.Load(), "editsTakenBack": s.takenBack.Load(), "editsForgotten": s.forgotten.Load()}
}

// rewrite returns the message with the call at path shown as an edit, or
// nil to leave it alone. announces: the message opens the call or asks to
// run it (tool_call, session/request_permission).
func (s *Filter) rewrite(m *filters.Message, path []string, announces bool) ([]byte, error) {
	callRaw, ok := rawjson.Get(m.Raw, path...)
	if !ok {
		return nil, nil
	}
	id, _ := rawjson.GetString(callRaw, "toolCallId")
	sid := m.SessionID()
	if id == "" || sid == "" || m.Caps.Loading(sid) {
		// session/load replays history: today's file is not what those
		// calls saw.
		return nil, nil
	}
	c := s.calls.Get(sid, id)
	if toolName, ok := claudeToolName(m, callRaw); ok {
		if c == nil {
			c = s.track(sid, id)
		}
		s.session(m, sid).claude = true
		c.claude = true
		// Another claude tool (an MCP tool's input may have a
		// "command" too) is never a shell command.
		c.otherTool = c.otherTool || toolName != "Bash"
	}
	status, _ := rawjson.GetString(callRaw, "status")
	final := status == "completed" || status == "failed"
	if rawInput, ok := rawjson.Get(callRaw, "rawInput"); ok {
		c = s.judgeMessage(m, path, callRaw, c, rawInput, announces)
	}
	if final {
		s.opened.Remove(sid, id) // a v2 call's id is no longer open
		s.session(m, sid).lastEnd = m.Time
	}
	if c == nil {
		return nil, nil
	}
	out, err := s.present(m.Raw, path, callRaw, c, status)
	if err != nil {
		return nil, err
	}
	if title, ok := rawjson.Get(callRaw, "title"); ok {
		c.title = append(c.title[:0], title...)
	}
	if final {
		s.end(c, status)
	}
	return out, nil
}

// judgeMessage judges the rawInput the call at path in m carries (see judge), and returns the
// call's state. announces is as rewrite's.
func (s *Filter) judgeMessage(m *filters.Message, path []string, callRaw []byte, c *call, rawInput []byte, announces bool) *call {
	sid := m.SessionID()
	id, _ := rawjson.GetString(callRaw, "toolCallId")
	status, _ := rawjson.GetString(callRaw, "status")
	final := status == "completed" || status == "failed"
	// A command that has not run yet can start an edit: the existing
	// file is still the one it will replace.
	fresh := announces && !final || status == "" || status == "pending"
	// One reported running may have written already: a file it
	// changed is not read as its state before (ranSince).
	s.ranSince = time.Time{}
	if !(status == "pending" || isPermission(path) || announces && status == "") {
		s.ranSince = ranSince(m.Time, s.session(m, sid).lastEnd)
	}
	var shown *edit
	if c != nil {
		shown = c.edit
	}
	c = s.judge(m, sid, id, c, rawInput, fresh && isExecute(callRaw, announces))
	if isPermission(path) && c != nil && c.edit != nil && c.edit != shown {
		// A permission request is not the call: a client that keeps its prompts apart from
		// its calls still shows the call as its updates left it (a tool_call that passed as
		// a command when its file's text before was not known, say). The call's next update
		// states the edit whole.
		c.stale = true
	}
	return c
}

// present returns the message raw with the call at path as the client must see it: its edit
// (verified, or taken back, when the call ends), its edit taken back when the client still shows
// one that no longer is, or nil to leave it alone.
func (s *Filter) present(raw []byte, path []string, callRaw []byte, c *call, status string) ([]byte, error) {
	permission := isPermission(path)
	switch {
	case c.edit != nil && (status == "completed" || status == "failed"):
		out, takenBack, err := s.endShown(raw, path, c, status)
		if takenBack {
			c.cdDir = "" // it did not run as shown: where its cds went is not known
		}
		return out, err
	case c.edit != nil && c.edit.changed != "":
		// Said at the answer: the edit is not restated, and the client keeps the note.
		return nil, nil
	case c.edit != nil:
		restate := c.stale && !permission
		out, err := show(raw, path, callRaw, c.edit, c.title, permission, restate)
		c.stale = c.stale && (permission || err != nil)
		return out, err
	case c.stale && !permission:
		out, err := retract(raw, path, callRaw, c.title)
		c.stale = err != nil
		return out, err
	}
	return nil, nil
}

// judge decides the call from the rawInput a message carries, and returns
// the call's state (nil if none is kept). mayStart: the message may start
// an edit (see rewrite).
func (s *Filter) judge(m *filters.Message, sid, id string, c *call, rawInput []byte, mayStart bool) *call {
	sess := s.session(m, sid)
	// In a claude session a bare command is claude's, even on a message
	// that does not say so (0.23's permission requests carry no _meta).
	claude := c != nil && c.claude || sess.claude
	if sess.forgotten && !claude && c == nil {
		return nil // whose command this is was forgotten with the session
	}
	cmd, ok := commandOf(rawInput, claude, agentName(m), m.Caps.Cwd(sid))
	if !ok && !claude && hasCommand(rawInput) {
		// A command in a shape the filter cannot read (a directory key it does not know, say) may
		// run elsewhere than a later message of the call, which lacks that key, says: the call's
		// earlier messages count, and it stands aside from now on.
		if c == nil {
			c = s.track(sid, id)
		}
		c.unreadable = true
	}
	ok = ok && (c == nil || !c.otherTool && !c.unreadable)
	if ok && cmd.shape == shapeBare && mayWrite(rawInput) {
		c, cmd, ok = s.bareDirectory(m, sid, id, c, cmd)
	}
	if c != nil && c.edit != nil {
		if ok && cmd.script == c.edit.cmd.script && cmd.dir == c.edit.cmd.dir || strippedLine(rawInput, c.edit.cmd) {
			return c // the same command: the same edit
		}
		s.dropEdit(c) // another command, or none: not this edit
	}
	var r recognised
	switch {
	case ok && mayStart && mayWrite(rawInput):
		c, r = s.recogniseOnce(m, sess, sid, id, c, claude, rawInput, cmd)
	case ok && claude:
		r.staysPut = staysPut(cmd.script)
	}
	if claude && ok && !r.staysPut && cmd.wrapper == "" {
		// A command the filter does not follow may move claude's shell
		// anywhere; a recognised `cd DIR &&` sets it when it completes.
		// A script wrapped in a shell of its own cannot.
		sess.shellCwd = ""
	}
	e, cdDir := r.edit, r.cdDir
	if e == nil || e.size() > s.limit() {
		return c
	}
	for s.held+e.size() > s.limit() && s.calls.Len() > 0 {
		s.evictOldest()
	}
	if c == nil || s.calls.Get(sid, id) != c {
		c = s.track(sid, id)
		c.claude = claude
	}
	c.edit, c.cdDir, c.root = e, cdDir, filepath.Clean(m.Caps.Cwd(sid))
	s.held += e.size()
	s.note(c, "edit shown", "")
	return c
}

// recogniseOnce is recognise for call id, judged once per call for the same rawInput in the
// same place: reading a script can cost up to its Work bound, and an agent may send it in several
// messages. A write another live call shows pending stands aside. It returns the call's state (one
// is kept for a refusal, to remember it) and what was recognised.
func (s *Filter) recogniseOnce(m *filters.Message, sess *session, sid, id string, c *call, claude bool, rawInput []byte, cmd command) (*call, recognised) {
	key := judgedKey(rawInput, cmd, sess.shellCwd, m.Caps.Cwd(sid), checksRan(s.ranSince))
	if c != nil && c.judged != nil && c.judged.key == key {
		return c, c.judged.r
	}
	r := s.recognise(m, sess, sid, cmd)
	if r.edit != nil && s.pendingOn(r.edit, c) {
		r.edit = nil
	}
	if r.edit == nil {
		if c == nil {
			c = s.track(sid, id)
			c.claude = claude
		}
		c.judged = &judged{key: key, r: r}
	}
	return c, r
}

// bareDirectory settles where a bare command (opencode's, gemini's) runs, and returns the call's
// state. An update reports the command with its directory (workdir or cwd; none is the session's),
// which the call keeps. opencode's permission request reports only {command}: the command runs
// where the call's last update said, and without such an update, or with another script or
// directory there, where it runs is unknown.
func (s *Filter) bareDirectory(m *filters.Message, sid, id string, c *call, cmd command) (*call, command, bool) {
	if m.Method() == "session/request_permission" {
		if c == nil || c.reported == nil || !sameScript(c.reported.script, cmd.script, agentName(m)) || cmd.dir != "" && cmd.dir != c.reported.dir {
			return c, cmd, false
		}
		cmd.script, cmd.dir = c.reported.script, c.reported.dir
		return c, cmd, true
	}
	if cmd.dir == "" {
		root := m.Caps.Cwd(sid)
		if !filepath.IsAbs(root) {
			return c, cmd, false
		}
		cmd.dir = filepath.Clean(root)
	}
	if c == nil {
		c = s.track(sid, id)
	}
	reported := cmd
	c.reported = &reported
	return c, cmd, true
}

// isExecute reports whether the call is a command: its kind is execute, or
// absent on a message that does not open the call (an update replaces only
// what it carries; a new call without a kind is "other").
func isExecute(callRaw []byte, opens bool) bool {
	kind, ok := rawjson.GetString(callRaw, "kind")
	return ok && kind == "execute" || !ok && !opens
}

// mayWrite reports whether JSON text may hold a shell write: a '>', raw or escaped (Go encoders
// write \u003e), or the name of a command that writes without one (sed -i, touch, tee).
func mayWrite(raw []byte) bool {
	return bytes.IndexByte(raw, '>') >= 0 || bytes.Contains(raw, []byte(`\u003e`)) || bytes.Contains(raw, []byte(`\u003E`)) ||
		bytes.Contains(raw, []byte("sed")) || bytes.Contains(raw, []byte("touch")) || bytes.Contains(raw, []byte("tee"))
}

// recognised is what recognise found.
type recognised struct {
	edit  *edit  // nil: not shown as an edit
	cdDir string // where the command's cds leave the shell, "" without one
	// staysPut: the command provably leaves the shell's directory alone
	// (shellwrite knows every statement, and none is a cd), even when it
	// is not shown.
	staysPut bool
}

// recognise decides which files cmd provably writes, and reads their
// current text.
func (s *Filter) recognise(m *filters.Message, sess *session, sid string, cmd command) recognised {
	root := m.Caps.Cwd(sid)
	if !filepath.IsAbs(root) {
		return recognised{} // no session directory to check the target against
	}
	dir := cmd.dir
	if cmd.shape == shapeClaude {
		dir = sess.shellCwd
	}
	knownDir := dir != ""
	if !knownDir {
		dir = root
	}
	if !filepath.IsAbs(dir) || strings.ContainsAny(cmd.script+dir, "\r\x00") {
		return recognised{}
	}
	script, err := shellwrite.ParseScript(cmd.script, filepath.Clean(dir))
	if err != nil {
		return recognised{}
	}
	if script.SearchesCDPATH() && os.Getenv("CDPATH") != "" {
		// The agent, started by the proxy, has the proxy's environment:
		// its cd may find the directory on $CDPATH.
		return recognised{}
	}
	r := directoryEffect(script, cmd)
	if cmd.shape == shapeClaude && claudeTransformed(cmd.claudeText()) != nil {
		// Claude Code runs another command; its transformations (see
		// claudeTransformed) add no cd.
		return r
	}
	if !knownDir && cmd.shape == shapeClaude && script.DependsOnCwd() {
		return r // claude's shell may be anywhere by now
	}
	if len(script.Writes) == 0 {
		return r // nothing to read: it writes no file the proxy can show
	}
	files, complete, err := s.scriptFiles(m, cmd.script, filepath.Clean(dir), script, root)
	if err == nil && len(files) > 0 {
		r.edit = newEdit(cmd, files, root, !complete, isV2(m))
	}
	return r
}

// scriptFiles is what the script writes, as the message's Disk reads it. A single write of the
// kind the filter showed before it read whole scripts is read as one "write-target", as then, so
// that the traces recorded then replay as they were recorded; any other script as "script-edits".
func (s *Filter) scriptFiles(m *filters.Message, script, dir string, parsed shellwrite.Script, root string) ([]shellwrite.FileEdit, bool, error) {
	w, err := shellwrite.Parse(script, dir)
	if err != nil {
		return scriptEdits(m, script, dir, parsed, root, s.OutsideCwd, s.limit(), s.ranSince)
	}
	t, err := checkTarget(m, script, dir, w, root, s.OutsideCwd, s.limit(), s.ranSince)
	if err != nil {
		return nil, false, err
	}
	return []shellwrite.FileEdit{{Path: t.Path, Old: t.Old, Exists: t.Exists, New: w.Content}}, true, nil
}

// directoryEffect is where script leaves the shell that runs cmd: in place, in the directory of
// its cds, or unknown (a statement shellwrite does not know may move it).
func directoryEffect(script shellwrite.Script, cmd command) recognised {
	dir, known := script.Dir()
	switch {
	case cmd.wrapper != "":
		return recognised{staysPut: true} // its cds run in a shell of its own
	case !known:
		return recognised{}
	case script.Cds():
		return recognised{cdDir: dir}
	}
	return recognised{staysPut: true}
}

// staysPut reports whether script provably leaves its shell's directory
// alone: shellwrite knows every statement, and none is a cd.
func staysPut(script string) bool {
	s, err := shellwrite.ParseScript(script, "/")
	if err != nil {
		return false
	}
	_, known := s.Dir()
	return known && !s.Cds()
}

// track starts keeping state for a call.
func (s *Filter) track(sid, id string) *call {
	c := &call{session: sid, id: id}
	s.calls.Max = maxShellPatchCalls
	if old := s.calls.Add(sid, id, c); old != nil {
		s.forget(old)
	}
	return c
}

func (s *Filter) evictOldest() {
	if old := s.calls.RemoveOldest(); old != nil {
		s.forget(old)
	}
}

func (s *Filter) dropEdit(c *call) {
	s.releaseInput(c)
	if c.edit != nil {
		s.held -= c.edit.size()
		c.edit, c.cdDir, c.stale = nil, "", true
	}
}

// end forgets a call that completed or failed. A claude call that ran a
// recognised `cd DIR && …` to completion left its shell in DIR, unless DIR
// is outside the session's directory (Claude Code then moves it back).
func (s *Filter) end(c *call, status string) {
	if c.claude && c.cdDir != "" {
		if sess := s.sessions.get(c.session); sess != nil && status == "completed" && inside(c.cdDir, c.root) {
			sess.shellCwd = c.cdDir
		}
	}
	s.dropEdit(c)
	s.calls.Remove(c.session, c.id)
	s.opened.Remove(c.session, c.id)
}

// session returns the filter's state for session sid. A session first
// seen after another was evicted may be that one come back: it starts
// forgotten, its shell's directory unknown.
func (s *Filter) session(m *filters.Message, sid string) *session {
	sess := s.sessions.get(sid)
	if sess == nil {
		sess = &session{forgotten: s.sessions.evicted, started: s.sessions.evicted}
		s.sessions.add(sid, sess)
	}
	if !sess.started {
		if cwd := m.Caps.Cwd(sid); filepath.IsAbs(cwd) {
			sess.shellCwd, sess.started = filepath.Clean(cwd), true
		}
	}
	return sess
}

// agentName is the name the agent gave in initialize, or "".
func agentName(m *filters.Message) string {
	a, _ := m.Caps.Agent()
	return a.Name
}

// Skips implements filters.Skipper: a notification about no tool call
// ends no turn, opens or continues no call and is no permission request,
// so Apply would send only the queued updates before it (none here).
// The edits changed meanwhile (takeChanged) wait for the next message
// that may show them, which is about a tool call. The chain asks only
// on a v1 connection, where no notification ends a turn.
func (s *Filter) Skips(g filters.Glance) bool {
	return g.Notification && !g.Tool && len(s.pending) == 0
}

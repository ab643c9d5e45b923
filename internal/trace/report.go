package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/acp-proxy/acp-proxy/acp"
)

// SummaryReport is a Summary's figures.
type SummaryReport struct {
	// Agent and Client are the names (and versions) they gave in
	// initialize; Seconds is when the last message came, in a replay.
	Agent   string  `json:"agent,omitempty"`
	Client  string  `json:"client,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	// Command is the agent's command line, when the trace recorded it
	// (a "connection" record), which also says how the proxy was run:
	// Recording.
	Command   []string        `json:"command,omitempty"`
	Recording *ConnectionInfo `json:"recording,omitempty"`
	// AfterAsRecorded says "after" is what the recording proxy sent (the
	// records' "out"): the trace was recorded through filters and
	// replayed through none.
	AfterAsRecorded bool `json:"afterAsRecorded,omitempty"`
	// ReplayedRecorded says the trace was recorded through filters that
	// changed it, and replayed through filters again: "after" is the
	// replay's, made from what the recording proxy received.
	ReplayedRecorded bool              `json:"replayedRecorded,omitempty"`
	Directions       []DirectionReport `json:"directions"`
	Filters          []FilterFigures   `json:"filters"`
	// ToolCalls are the largest contributors to agent→client bytes, before
	// the filters, largest first (at most 10).
	ToolCalls []CallCount `json:"toolCalls"`
}

// DirectionReport is one direction before and after the filters.
type DirectionReport struct {
	Direction string    `json:"direction"`
	Before    acp.Count `json:"before"`
	After     acp.Count `json:"after"`
}

// FilterFigures is one filter's input and output per direction.
type FilterFigures struct {
	Name string               `json:"name"`
	Flag string               `json:"flag"` // the flag that turned it on
	In   map[string]acp.Count `json:"in"`
	Out  map[string]acp.Count `json:"out"`
	// Notes say per direction what the filter changed, or why it changed
	// nothing (filters.Explained).
	Notes map[string]string `json:"notes,omitempty"`
	// Counts are the filter's own events that happened (shell-to-patch: editsVerified,
	// editsTakenBack, editsForgotten); absent when none did.
	Counts map[string]int64 `json:"counts,omitempty"`
}

// Report returns the figures so far.
func (s *Summary) Report() SummaryReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := SummaryReport{Filters: []FilterFigures{}, ToolCalls: []CallCount{}} // [] in JSON, not null
	for _, d := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		r.Directions = append(r.Directions, DirectionReport{d.String(), s.dirs[d].before, s.dirs[d].after})
	}
	r.Agent, r.Client = s.peers()
	r.Seconds = s.span.Seconds()
	if s.recording != nil {
		r.Command, r.Recording = s.recording.Agent, s.recording
	}
	r.AfterAsRecorded = s.sawOut && s.chain.Len() == 0
	r.ReplayedRecorded = s.sawOut && !r.AfterAsRecorded
	if r.AfterAsRecorded {
		for d := range r.Directions {
			r.Directions[d].After = s.dirs[d].sent
		}
	}
	for _, f := range s.chain.Stats() {
		ff := FilterFigures{Name: f.Name, Flag: f.Flag, In: map[string]acp.Count{}, Out: map[string]acp.Count{}, Counts: f.Counts}
		for _, d := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
			ff.In[d.String()] = f.In[d]
			ff.Out[d.String()] = f.Out[d]
			if f.Notes[d] != "" {
				if ff.Notes == nil {
					ff.Notes = map[string]string{}
				}
				ff.Notes[d.String()] = f.Notes[d]
			}
		}
		r.Filters = append(r.Filters, ff)
	}
	r.ToolCalls = largestCalls(s.callsLocked(r.AfterAsRecorded))
	return r
}

// callsLocked are the calls' figures, with what the recording proxy sent
// as "after" when asRecorded.
func (s *Summary) callsLocked(asRecorded bool) []CallCount {
	calls := []CallCount{}
	for _, c := range s.calls {
		cc := *c
		if asRecorded {
			cc.After = cc.sent
		}
		calls = append(calls, cc)
	}
	return calls
}

// largestCalls sorts calls by bytes before, largest first (equal ones in
// the order they came), and keeps the first 10.
func largestCalls(calls []CallCount) []CallCount {
	sort.SliceStable(calls, func(i, j int) bool {
		a, b := calls[i], calls[j]
		if a.Before.Bytes != b.Before.Bytes {
			return a.Before.Bytes > b.Before.Bytes
		}
		if a.Connection != b.Connection {
			return a.Connection < b.Connection
		}
		return a.seen < b.seen
	})
	return calls[:min(len(calls), 10)]
}

// peers names the agent and the client as they named themselves.
func (s *Summary) peers() (agent, client string) {
	if s.chain == nil || s.chain.Caps() == nil {
		return "", ""
	}
	caps := s.chain.Caps()
	if caps == nil {
		return "", ""
	}
	if a, ok := caps.Agent(); ok {
		agent = strings.TrimSpace(a.Name + " " + a.Version)
	}
	if c, ok := caps.Client(); ok {
		client = c.Name
	}
	return agent, client
}

// WriteJSON writes the report as one JSON object.
func (r SummaryReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "client->agent", not "client-\u003eagent"
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteText writes the report for people.
func (r SummaryReport) WriteText(w io.Writer) error {
	lines := r.recorded()
	if line := r.describe(); line != "" {
		lines = append([]string{line}, lines...)
	}
	for _, line := range lines {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	t := &table{cols: 6}
	t.add("direction", "messages before", "bytes before", "messages after", "bytes after", "bytes after/before")
	for _, d := range r.Directions {
		t.add(d.Direction, fmt.Sprint(d.Before.Messages), human(d.Before.Bytes),
			fmt.Sprint(d.After.Messages), human(d.After.Bytes), ratio(d.After.Bytes, d.Before.Bytes))
	}
	for _, d := range []acp.Direction{acp.AgentToClient, acp.ClientToAgent} {
		r.addFilters(t, d)
	}
	for _, f := range r.Filters {
		for _, k := range slices.Sorted(maps.Keys(f.Counts)) {
			t.add(f.Flag+" "+k, fmt.Sprint(f.Counts[k]))
		}
	}
	if len(r.ToolCalls) > 0 {
		t.add()
		t.add("largest tool calls (agent->client)", "messages before", "bytes before", "messages after", "bytes after", "bytes after/before")
		for _, c := range r.ToolCalls {
			t.add(c.label(), fmt.Sprint(c.Before.Messages), human(c.Before.Bytes),
				fmt.Sprint(c.After.Messages), human(c.After.Bytes), ratio(c.After.Bytes, c.Before.Bytes))
		}
	}
	return t.write(w)
}

// describe is the line that says whose connection this was, or "".
func (r SummaryReport) describe() string {
	var parts []string
	if r.Agent != "" {
		parts = append(parts, "agent "+r.Agent)
	} else if len(r.Command) > 0 {
		parts = append(parts, "agent command "+strings.Join(r.Command, " "))
	}
	if r.Client != "" {
		parts = append(parts, "client "+r.Client)
	}
	if r.Seconds > 0 {
		parts = append(parts, seconds(r.Seconds))
	}
	return strings.Join(parts, ", ")
}

// seconds is a duration in seconds as the report writes one.
func seconds(s float64) string {
	if s >= 10 {
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.3f s", s)
}

// recorded are the lines that say how the trace was made (its
// "connection" record) and what "after" means when it was recorded
// through filters.
func (r SummaryReport) recorded() []string {
	var lines []string
	if ci := r.Recording; ci != nil {
		lines = append(lines, fmt.Sprintf("recorded by acp-proxy %s on %s: %s", orUnknown(ci.Proxy),
			ci.Started.UTC().Format("2006-01-02 15:04:05 MST"), ShellJoin(append(append([]string{"acp-proxy"}, ci.Args...), append([]string{"--"}, ci.Agent...)...))))
	}
	switch {
	case r.AfterAsRecorded:
		lines = append(lines, "after: what the recording proxy sent (its filters' work, the trace's \"out\"); give filter flags to see each filter's share")
	case r.ReplayedRecorded:
		lines = append(lines, "after: what this replay's filters make of the lines the recording proxy received (what it sent is the trace's \"out\")")
	}
	return lines
}

func orUnknown(s string) string {
	if s == "" {
		return "(version unknown)"
	}
	return s
}

// ShellJoin writes a command line as a POSIX shell reads it: each word
// that holds more than letters, digits and @%+=:,./_- in single quotes.
func ShellJoin(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = a
		if a == "" || strings.ContainsFunc(a, func(c rune) bool { return !shellSafe(c) }) {
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

func shellSafe(c rune) bool {
	return c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./_-", c))
}

// addFilters adds the filters' rows for direction d: every filter's for
// agent→client, where they work; for client→agent, those that changed
// something there. A row's note says what the filter changed, or why it
// stood aside.
func (r SummaryReport) addFilters(t *table, d acp.Direction) {
	var rows []FilterFigures
	for _, f := range r.Filters {
		if d == acp.AgentToClient || f.In[d.String()] != f.Out[d.String()] {
			rows = append(rows, f)
		}
	}
	if len(rows) == 0 {
		return
	}
	t.add()
	t.add(fmt.Sprintf("filter (%s)", d), "messages in", "bytes in", "messages out", "bytes out", "bytes out/in")
	for _, f := range rows {
		in, out := f.In[d.String()], f.Out[d.String()]
		label := f.Flag
		if label == "" {
			label = f.Name
		}
		cells := []string{label, fmt.Sprint(in.Messages), human(in.Bytes), fmt.Sprint(out.Messages), human(out.Bytes), ratio(out.Bytes, in.Bytes)}
		if note := f.Notes[d.String()]; note != "" {
			cells = append(cells, note)
		}
		t.add(cells...)
	}
}

// label is what a person knows the call by: its title, shortened to one
// line of at most 60 characters, or its id.
func (c CallCount) label() string {
	t := strings.Join(strings.Fields(c.Title), " ")
	if t == "" {
		t = c.ToolCallID
	}
	if r := []rune(t); len(r) > 60 {
		t = string(r[:59]) + "…"
	}
	if c.Connection > 0 {
		t = fmt.Sprintf("[%d] %s", c.Connection, t)
	}
	return t
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func ratio(after, before int64) string {
	if before == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(after)/float64(before))
}

// Report is the figures of a replayed trace: its totals, and those of
// each of its connections (one per proxy run it holds).
type Report struct {
	SummaryReport
	Connections []SummaryReport `json:"connections"`
}

// NewReport reports the summaries of a trace's connections, in order.
func NewReport(conns []*Summary) Report {
	tr := Report{Connections: []SummaryReport{}}
	var calls []CallCount
	for i, s := range conns {
		r := s.Report()
		r.ToolCalls = []CallCount{}
		for _, c := range s.allCalls() {
			r.ToolCalls = append(r.ToolCalls, c)
			if len(conns) > 1 {
				c.Connection = i + 1 // calls of two connections may share an id
			}
			calls = append(calls, c)
		}
		r.ToolCalls = largestCalls(r.ToolCalls)
		tr.Connections = append(tr.Connections, r)
		tr.add(r, i == 0)
	}
	tr.ToolCalls = largestCalls(append([]CallCount{}, calls...))
	if len(conns) > 1 {
		tr.Recording = nil // each connection's own
	}
	if len(conns) == 1 {
		tr.SummaryReport = tr.Connections[0]
	}
	return tr
}

func (s *Summary) allCalls() []CallCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callsLocked(s.sawOut && s.chain.Len() == 0)
}

// add counts a connection's figures into the totals.
func (tr *Report) add(r SummaryReport, first bool) {
	tr.Seconds += r.Seconds
	tr.AfterAsRecorded = tr.AfterAsRecorded || r.AfterAsRecorded
	tr.ReplayedRecorded = tr.ReplayedRecorded || r.ReplayedRecorded
	if first {
		tr.Directions = append([]DirectionReport(nil), r.Directions...)
		tr.Filters = []FilterFigures{}
		for _, f := range r.Filters {
			tr.Filters = append(tr.Filters, FilterFigures{Name: f.Name, Flag: f.Flag, In: maps.Clone(f.In), Out: maps.Clone(f.Out), Counts: maps.Clone(f.Counts)})
		}
		return
	}
	for i, d := range r.Directions {
		tr.Directions[i].Before.Plus(d.Before)
		tr.Directions[i].After.Plus(d.After)
	}
	for i, f := range r.Filters {
		if i >= len(tr.Filters) || tr.Filters[i].Name != f.Name {
			continue // the same flags make the same chain
		}
		for k, v := range f.Counts {
			if tr.Filters[i].Counts == nil {
				tr.Filters[i].Counts = map[string]int64{}
			}
			tr.Filters[i].Counts[k] += v
		}
		for d := range f.In {
			in, out := tr.Filters[i].In[d], tr.Filters[i].Out[d]
			in.Plus(f.In[d])
			out.Plus(f.Out[d])
			tr.Filters[i].In[d], tr.Filters[i].Out[d] = in, out
		}
	}
}

// WriteText writes the report for people: how many connections, the
// totals of several, then each.
func (tr Report) WriteText(w io.Writer) error {
	n := len(tr.Connections)
	if n > 1 {
		totals := tr.SummaryReport
		totals.Seconds = 0
		if _, err := fmt.Fprintf(w, "%d connections (proxy runs), %s in all; totals:\n", n, seconds(tr.Seconds)); err != nil {
			return err
		}
		if err := totals.WriteText(w); err != nil {
			return err
		}
	}
	for i, r := range tr.Connections {
		head := "1 connection"
		if n > 1 {
			head = fmt.Sprintf("\nconnection %d of %d", i+1, n)
		}
		if line := r.describe(); line != "" {
			head += ": " + line
		}
		if _, err := fmt.Fprintln(w, head); err != nil {
			return err
		}
		r.Agent, r.Client, r.Seconds, r.Command = "", "", 0, nil // said in the heading
		if err := r.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the report as one JSON object: the totals, and
// "connections".
func (tr Report) WriteJSON(w io.Writer) error { return writeJSON(w, tr) }

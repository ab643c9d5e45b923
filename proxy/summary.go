package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Summary counts what entered and what left the filter chain, per direction
// and per tool call, for `replay --summary` and the live `--stats`. A nil
// *Summary counts nothing.
type Summary struct {
	mu      sync.Mutex
	chain   *filters.Chain
	dirs    [2]struct{ before, after Count }
	calls   map[string]*CallCount
	order   int           // calls seen, to list equal ones in order
	span    time.Duration // the time of the last message (replays)
	command []string      // the agent's command line, from a "connection" record
}

// Count is a number of messages and their bytes on the wire ('\n' included).
type Count struct {
	Messages int64 `json:"messages"`
	Bytes    int64 `json:"bytes"`
}

func (c *Count) add(n int) { c.Messages++; c.Bytes += int64(n) + 1 }

// CallCount is what one tool call cost the client, before and after.
type CallCount struct {
	ToolCallID string `json:"toolCallId"`
	// Title is the call's last title as the agent sent it, or, without
	// one, its command.
	Title  string `json:"title,omitempty"`
	Before Count  `json:"before"`
	After  Count  `json:"after"`
	// Connection numbers the trace's connection the call belongs to,
	// from 1, in a report of several.
	Connection int `json:"connection,omitempty"`
	seen       int
}

// NewSummary counts traffic through chain (nil: no filters).
func NewSummary(chain *filters.Chain) *Summary {
	return &Summary{chain: chain, calls: map[string]*CallCount{}}
}

func (s *Summary) before(d acp.Direction, raw []byte) { s.count(d, raw, false) }
func (s *Summary) after(d acp.Direction, raw []byte)  { s.count(d, raw, true) }

// long counts a line streamed through unfiltered: the same before and after.
func (s *Summary) long(d acp.Direction, n int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs[d].before.add(n)
	s.dirs[d].after.add(n)
}

func (s *Summary) count(d acp.Direction, raw []byte, after bool) {
	if s == nil {
		return
	}
	id, title := "", ""
	if d == acp.AgentToClient && bytes.Contains(raw, []byte(`"toolCallId"`)) {
		id, _ = rawjson.GetString(raw, "params", "update", "toolCallId")
		if !after && id != "" {
			title = callTitle(raw)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.dirs[d].before
	if after {
		c = &s.dirs[d].after
	}
	c.add(len(raw))
	if id == "" {
		return
	}
	cc := s.calls[id]
	if cc == nil {
		s.order++
		cc = &CallCount{ToolCallID: id, seen: s.order}
		s.calls[id] = cc
	}
	if title != "" {
		cc.Title = title
	}
	if after {
		cc.After.add(len(raw))
	} else {
		cc.Before.add(len(raw))
	}
}

// callTitle is what a person knows a tool call by: its title, or the
// command it runs; "" when the update carries neither.
func callTitle(raw []byte) string {
	update, _ := rawjson.Get(raw, "params", "update")
	if t, ok := rawjson.GetString(update, "title"); ok && strings.TrimSpace(t) != "" {
		return t
	}
	if c, ok := rawjson.GetString(update, "rawInput", "command"); ok {
		return c
	}
	if argv, ok := rawjson.Get(update, "rawInput", "command"); ok {
		var words []string
		if json.Unmarshal(argv, &words) == nil && len(words) > 0 {
			return strings.Join(words, " ")
		}
	}
	return ""
}

// started notes a "connection" record's object (see ConnectionInfo).
func (s *Summary) started(info []byte) {
	if s == nil {
		return
	}
	var ci ConnectionInfo
	if json.Unmarshal(info, &ci) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.command = ci.Agent
}

// at notes the time of a message (a replay's recorded clock).
func (s *Summary) at(t time.Duration) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.span = max(s.span, t)
}

// SummaryReport is a Summary's figures.
type SummaryReport struct {
	// Agent and Client are the names (and versions) they gave in
	// initialize; Seconds is when the last message came, in a replay.
	Agent   string  `json:"agent,omitempty"`
	Client  string  `json:"client,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	// Command is the agent\'s command line, when the trace recorded it
	// (a "connection" record).
	Command    []string          `json:"command,omitempty"`
	Directions []DirectionReport `json:"directions"`
	Filters    []FilterFigures   `json:"filters"`
	// ToolCalls are the largest contributors to agent→client bytes, before
	// the filters, largest first (at most 10).
	ToolCalls []CallCount `json:"toolCalls"`
}

// DirectionReport is one direction before and after the filters.
type DirectionReport struct {
	Direction string `json:"direction"`
	Before    Count  `json:"before"`
	After     Count  `json:"after"`
}

// FilterFigures is one filter's input and output per direction.
type FilterFigures struct {
	Name string           `json:"name"`
	Flag string           `json:"flag"` // the flag that turned it on
	In   map[string]Count `json:"in"`
	Out  map[string]Count `json:"out"`
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
	r.Command = s.command
	for _, f := range s.chain.Stats() {
		ff := FilterFigures{Name: f.Name, Flag: f.Flag, In: map[string]Count{}, Out: map[string]Count{}, Counts: f.Counts}
		for _, d := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
			ff.In[d.String()] = Count(f.In[d])
			ff.Out[d.String()] = Count(f.Out[d])
			if f.Notes[d] != "" {
				if ff.Notes == nil {
					ff.Notes = map[string]string{}
				}
				ff.Notes[d.String()] = f.Notes[d]
			}
		}
		r.Filters = append(r.Filters, ff)
	}
	for _, c := range s.calls {
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	r.ToolCalls = largestCalls(r.ToolCalls)
	return r
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
	if line := r.describe(); line != "" {
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
	switch {
	case r.Seconds >= 10:
		parts = append(parts, fmt.Sprintf("%.1f s", r.Seconds))
	case r.Seconds > 0:
		parts = append(parts, fmt.Sprintf("%.3f s", r.Seconds))
	}
	return strings.Join(parts, ", ")
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

// TraceReport is the figures of a replayed trace: its totals, and those of
// each of its connections (one per proxy run it holds).
type TraceReport struct {
	SummaryReport
	Connections []SummaryReport `json:"connections"`
}

// NewTraceReport reports the summaries of a trace's connections, in order.
func NewTraceReport(conns []*Summary) TraceReport {
	tr := TraceReport{Connections: []SummaryReport{}}
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
	if len(conns) == 1 {
		tr.SummaryReport = tr.Connections[0]
	}
	return tr
}

func (s *Summary) allCalls() []CallCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	var calls []CallCount
	for _, c := range s.calls {
		calls = append(calls, *c)
	}
	return calls
}

// add counts a connection's figures into the totals.
func (tr *TraceReport) add(r SummaryReport, first bool) {
	if first {
		tr.Directions = append([]DirectionReport(nil), r.Directions...)
		tr.Filters = []FilterFigures{}
		for _, f := range r.Filters {
			tr.Filters = append(tr.Filters, FilterFigures{Name: f.Name, Flag: f.Flag, In: maps.Clone(f.In), Out: maps.Clone(f.Out), Counts: maps.Clone(f.Counts)})
		}
		return
	}
	for i, d := range r.Directions {
		tr.Directions[i].Before.plus(d.Before)
		tr.Directions[i].After.plus(d.After)
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
			in.plus(f.In[d])
			out.plus(f.Out[d])
			tr.Filters[i].In[d], tr.Filters[i].Out[d] = in, out
		}
	}
}

func (c *Count) plus(o Count) { c.Messages += o.Messages; c.Bytes += o.Bytes }

// WriteText writes the report for people: how many connections, then each.
func (tr TraceReport) WriteText(w io.Writer) error {
	n := len(tr.Connections)
	for i, r := range tr.Connections {
		head := "1 connection"
		if n > 1 {
			head = fmt.Sprintf("connection %d of %d", i+1, n)
			if i > 0 {
				head = "\n" + head
			}
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
func (tr TraceReport) WriteJSON(w io.Writer) error { return writeJSON(w, tr) }

package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"sync"
	"text/tabwriter"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/rawjson"
)

// Summary counts what entered and what left the filter chain, per direction
// and per tool call, for `replay --summary` and the live `--stats`. A nil
// *Summary counts nothing.
type Summary struct {
	mu    sync.Mutex
	chain *filters.Chain
	dirs  [2]struct{ before, after Count }
	calls map[string]*CallCount
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
	Before     Count  `json:"before"`
	After      Count  `json:"after"`
}

// NewSummary counts traffic through chain (nil: no filters).
func NewSummary(chain *filters.Chain) *Summary {
	return &Summary{chain: chain, calls: map[string]*CallCount{}}
}

func (s *Summary) before(d filters.Direction, raw []byte) { s.count(d, raw, false) }
func (s *Summary) after(d filters.Direction, raw []byte)  { s.count(d, raw, true) }

// long counts a line streamed through unfiltered: the same before and after.
func (s *Summary) long(d filters.Direction, n int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs[d].before.add(n)
	s.dirs[d].after.add(n)
}

func (s *Summary) count(d filters.Direction, raw []byte, after bool) {
	if s == nil {
		return
	}
	id := ""
	if d == filters.AgentToClient && bytes.Contains(raw, []byte(`"toolCallId"`)) {
		id, _ = rawjson.GetString(raw, "params", "update", "toolCallId")
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
		cc = &CallCount{ToolCallID: id}
		s.calls[id] = cc
	}
	if after {
		cc.After.add(len(raw))
	} else {
		cc.Before.add(len(raw))
	}
}

// SummaryReport is a Summary's figures.
type SummaryReport struct {
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
	In   map[string]Count `json:"in"`
	Out  map[string]Count `json:"out"`
	// Counts are the filter's own events that happened (shell-to-patch: editsVerified,
	// editsTakenBack, editsForgotten); absent when none did.
	Counts map[string]int64 `json:"counts,omitempty"`
}

// Report returns the figures so far.
func (s *Summary) Report() SummaryReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := SummaryReport{Filters: []FilterFigures{}, ToolCalls: []CallCount{}} // [] in JSON, not null
	for _, d := range []filters.Direction{filters.ClientToAgent, filters.AgentToClient} {
		r.Directions = append(r.Directions, DirectionReport{d.String(), s.dirs[d].before, s.dirs[d].after})
	}
	for _, f := range s.chain.Stats() {
		ff := FilterFigures{Name: f.Name, In: map[string]Count{}, Out: map[string]Count{}, Counts: f.Counts}
		for _, d := range []filters.Direction{filters.ClientToAgent, filters.AgentToClient} {
			ff.In[d.String()] = Count{f.In[d][0], f.In[d][1] + f.In[d][0]}
			ff.Out[d.String()] = Count{f.Out[d][0], f.Out[d][1] + f.Out[d][0]}
		}
		r.Filters = append(r.Filters, ff)
	}
	for _, c := range s.calls {
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	sort.Slice(r.ToolCalls, func(i, j int) bool {
		a, b := r.ToolCalls[i], r.ToolCalls[j]
		if a.Before.Bytes != b.Before.Bytes {
			return a.Before.Bytes > b.Before.Bytes
		}
		return a.ToolCallID < b.ToolCallID
	})
	if len(r.ToolCalls) > 10 {
		r.ToolCalls = r.ToolCalls[:10]
	}
	return r
}

// WriteJSON writes the report as one JSON object.
func (r SummaryReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "client->agent", not "client-\u003eagent"
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people.
func (r SummaryReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "direction\tmessages before\tbytes before\tmessages after\tbytes after\tbytes after/before\t")
	for _, d := range r.Directions {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t\n", d.Direction, d.Before.Messages, human(d.Before.Bytes),
			d.After.Messages, human(d.After.Bytes), ratio(d.After.Bytes, d.Before.Bytes))
	}
	if len(r.Filters) > 0 {
		fmt.Fprintln(tw, "\t\t\t\t\t\t")
		fmt.Fprintln(tw, "filter (agent->client)\tmessages in\tbytes in\tmessages out\tbytes out\tbytes out/in\t")
		for _, f := range r.Filters {
			in, out := f.In[filters.AgentToClient.String()], f.Out[filters.AgentToClient.String()]
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t\n", f.Name, in.Messages, human(in.Bytes), out.Messages, human(out.Bytes), ratio(out.Bytes, in.Bytes))
		}
	}
	for _, f := range r.Filters {
		for _, k := range slices.Sorted(maps.Keys(f.Counts)) {
			fmt.Fprintf(tw, "%s %s\t%d\t\t\t\t\t\n", f.Name, k, f.Counts[k])
		}
	}
	if len(r.ToolCalls) > 0 {
		fmt.Fprintln(tw, "\t\t\t\t\t\t")
		fmt.Fprintln(tw, "largest tool calls\tmessages before\tbytes before\tmessages after\tbytes after\tbytes after/before\t")
		for _, c := range r.ToolCalls {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t\n", c.ToolCallID, c.Before.Messages, human(c.Before.Bytes),
				c.After.Messages, human(c.After.Bytes), ratio(c.After.Bytes, c.Before.Bytes))
		}
	}
	return tw.Flush()
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

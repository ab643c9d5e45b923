package view

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"slices"
	"strconv"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// timelineBins is how many bins the timeline has.
const timelineBins = 240

// Options say how to build a page's data.
type Options struct {
	// Name is the trace's name for the header.
	Name string
	// Chain is the filter chain to replay the trace through, built from
	// Flags; nil or empty: no replay, what was received is what was
	// delivered.
	Chain *filters.Chain
	Flags []string
	// NewChain, when set, makes the chain of each connection after the
	// first (Chain is the first's), so that each starts afresh, as the
	// proxy did.
	NewChain func() *filters.Chain
}

// Build reads a trace from r and returns what the page shows. It streams:
// the received lines are analysed as the replay reads them, in their own
// goroutine, and what the replay delivers in another, so memory holds
// only the model (and the latest value of each tool call field), never
// the trace.
func Build(ctx context.Context, r io.Reader, opt Options) (*Data, error) {
	if opt.Chain == nil || opt.Chain.Len() == 0 {
		return asRecorded(r, opt)
	}

	var before, after sides
	// The received lines are the records the replay reads, handed over
	// as it reads them (one parse of the trace); what it delivers comes
	// back through a pipe. Both are analysed in their own goroutine.
	in := trace.NewReader(r)
	received := make(chan trace.Record, 64) // at most 64 lines held
	in.Observe = func(rec trace.Record) { received <- rec }
	beforeDone := make(chan struct{})
	go func() {
		defer close(beforeDone)
		for rec := range received {
			before.feed(rec)
		}
	}()
	out := newPipe()
	afterErr := make(chan error, 1)
	go func() {
		err := analyse(trace.NewReader(out), &after)
		out.abandon() // the replay need not wait for a failed analysis
		afterErr <- err
	}()
	err := replay(ctx, in, out, opt)
	close(received)
	out.CloseWithError(nil) // the replay's own error is the one to report
	<-beforeDone
	if err := errors.Join(err, <-afterErr); err != nil {
		return nil, err
	}
	return assembleAll(opt, before.all, after.all), nil
}

// asRecorded builds the data of a trace without replaying it: what was
// delivered is what the recording proxy sent, the records' "out" (a trace
// recorded with filters), or, when no record has one, what was received.
// The delivered side is analysed in its own goroutine.
func asRecorded(r io.Reader, opt Options) (*Data, error) {
	var before, after sides
	recs := make(chan trace.Record, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for rec := range recs {
			after.feedDelivered(rec)
		}
	}()
	tr := trace.NewReader(r)
	recorded := false
	var err error
	for {
		var rec trace.Record
		if rec, err = tr.Next(); err != nil {
			break
		}
		recorded = recorded || rec.HasOut || rec.Held
		before.feed(rec)
		recs <- rec
	}
	close(recs)
	<-done
	if err != io.EOF {
		return nil, err
	}
	if !recorded {
		return assembleAll(opt, before.all, nil), nil
	}
	d := assembleAll(opt, before.all, after.all)
	markRecorded(d)
	return d, nil
}

// markRecorded says d and its connections show what the recording proxy
// sent as "after".
func markRecorded(d *Data) {
	d.Recorded = true
	for _, c := range d.Connections {
		c.Recorded = true
	}
}

// feedDelivered feeds s what the recording proxy sent for one record: its
// "out" lines when it has them, else its line.
func feedDelivered(s *side, rec trace.Record, last time.Duration) time.Duration {
	t := max(rec.T, last)
	switch {
	case rec.Note != nil:
		s.note(t, rec.Dir, rec.Note)
	case rec.HasOut:
		for _, line := range rec.Out {
			s.feed(t, rec.Dir, line, false) // a string in "out" may be any text
		}
	case rec.Held:
		return last // sent later: the record of its leaving has it
	case rec.HasLine:
		s.feed(t, rec.Dir, rec.Line, rec.JSON)
	default:
		return last
	}
	return t
}

// analyse feeds the lines of a trace to ss.
func analyse(tr *trace.Reader, ss *sides) error {
	for {
		rec, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		ss.feedReplayed(rec)
	}
}

// feedRecord feeds one record's line to s, at the time a replay gives it
// (the record's, or the last one's if the clock went back: order wins),
// and returns that time. Records without a line (the recording proxy's
// own additions) are skipped, as a replay skips them; so are those of held
// lines leaving, received before; a filter's decision (a "note" record) is
// an entry of the conversation.
func feedRecord(s *side, rec trace.Record, last time.Duration) time.Duration {
	if rec.Note != nil {
		t := max(rec.T, last)
		s.note(t, rec.Dir, rec.Note)
		return t
	}
	if !rec.HasLine || rec.Released {
		return last
	}
	t := max(rec.T, last)
	s.feed(t, rec.Dir, rec.Line, rec.JSON)
	return t
}

// assemble merges the two sides into the page's data. final closes the
// message being appended to, counting it against the conversation's
// budget; a live page's snapshot leaves it open, since more may follow.
func assemble(opt Options, before, after *side, final bool) *Data {
	if final {
		before.closeMessage()
		after.closeMessage()
	}
	d := &Data{
		Version:      ModelVersion,
		Trace:        opt.Name,
		Flags:        nonNil(opt.Flags),
		Filters:      []string{},
		Conversation: nonNil(after.conv),
		Messages:     []Msg{},
	}
	for _, f := range opt.Chain.Stats() {
		d.Filters = append(d.Filters, f.Flag) // as the user turned it on
	}
	start, end := before.first, max(before.last, after.last)
	d.Duration = secs(end - start)
	for _, dir := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		d.Directions = append(d.Directions, trace.DirectionReport{Direction: dir.String(), Before: before.dirs[dir], After: after.dirs[dir]})
	}
	d.Session = session(before, after)
	d.Recording = before.recording
	d.Timeline = timeline(before, after, end)

	var index map[string]int
	d.Calls, index = calls(before, after)
	d.Messages, d.MessagesOmitted = interleave(before, after, index)
	return d
}

// calls pairs each tool call's accumulations on the two sides, in the
// order they first appear (received first), and indexes them by id.
func calls(before, after *side) ([]Call, map[string]int) {
	out := []Call{}
	index := map[string]int{}
	for _, order := range [][]*callAcc{before.callOrder, after.callOrder} {
		for _, c := range order {
			if _, ok := index[c.id]; !ok {
				index[c.id] = len(out)
				out = append(out, Call{ID: c.id})
			}
		}
	}
	for i := range out {
		call := &out[i]
		b, a := before.calls[call.ID], after.calls[call.ID]
		if after == before {
			b = nil // no filters: one side, shown as what the client saw
		}
		if b != nil {
			call.Before = b.count
			call.Final.Before = b.state()
			call.Raw.Before, call.Raw.Omitted[0] = b.samples()
		}
		if a != nil {
			call.After = a.count
			call.Final.After = a.state()
			call.Raw.After, call.Raw.Omitted[1] = a.samples()
		}
		if after == before {
			call.Before, call.Raw.Before, call.Raw.Omitted[0] = call.After, call.Raw.After, call.Raw.Omitted[1]
			call.Raw.After, call.Raw.Omitted[1] = nil, 0
		}
		shown := a
		if shown == nil {
			shown = b
		}
		call.Title, call.Kind, call.Status = shown.title, shown.kind, shown.status
		call.Start, call.End = secs(shown.first), secs(shown.last)
		call.Raw.Before, call.Raw.After = nonNil(call.Raw.Before), nonNil(call.Raw.After)
	}
	return out, index
}

// interleave lists the messages of both sides, each received message
// followed by what the filters made of it (the delivered messages that
// name it as their source), and how many were left out of a long trace.
func interleave(before, after *side, index map[string]int) ([]Msg, int) {
	b := before.messages()
	omitted := before.msgN - len(b)
	var a []msgRec
	if after != before {
		a = after.messages()
		omitted += after.msgN - len(a)
	}
	msgs := make([]Msg, 0, len(b)+len(a))
	add := func(m msgRec, side string) {
		m.Side = side
		if i, ok := index[m.call]; ok && m.call != "" {
			m.Call = i
		}
		msgs = append(msgs, m.Msg)
	}
	j := 0
	for _, m := range b {
		for ; j < len(a) && a[j].Src < m.Src; j++ {
			add(a[j], "a")
		}
		add(m, "b")
		for ; j < len(a) && a[j].Src == m.Src; j++ {
			add(a[j], "a")
		}
	}
	for ; j < len(a); j++ {
		add(a[j], "a")
	}
	return msgs, omitted
}

// session gathers initialize and session/new, and the capabilities the
// filters changed.
func session(before, after *side) Session {
	s := Session{SessionIDs: nonNil(before.sessionIDs), Cwd: before.cwd, AuthMethods: []string{}}
	s.ProtocolVersion, _ = rawjson.Get(before.clientInit, "protocolVersion")
	if v, ok := rawjson.Get(before.agentInit, "protocolVersion"); ok {
		s.ProtocolVersion = v // the agent's answer is what was negotiated
	}
	s.Client = valueAt(before.clientInit, "clientInfo")
	s.Agent = valueAt(before.agentInit, "agentInfo")
	s.ClientCapabilities = capsChange(valueAt(before.clientInit, "clientCapabilities"), valueAt(after.clientInit, "clientCapabilities"))
	s.AgentCapabilities = capsChange(valueAt(before.agentInit, "agentCapabilities"), valueAt(after.agentInit, "agentCapabilities"))
	methods, _ := rawjson.Get(before.agentInit, "authMethods")
	_ = rawjson.Elements(methods, func(_ int, m []byte) bool {
		name, _ := rawjson.GetString(m, "name")
		if name == "" {
			name, _ = rawjson.GetString(m, "id")
		}
		s.AuthMethods = append(s.AuthMethods, name)
		return true
	})
	return s
}

// valueAt is the elided JSON value at key of obj, or nil.
func valueAt(obj []byte, key string) json.RawMessage {
	v, ok := rawjson.Get(obj, key)
	if !ok {
		return nil
	}
	return elideJSON(v)
}

func capsChange(before, after json.RawMessage) Capabilities {
	c := Capabilities{Before: before, After: after, Changed: []CapChange{}}
	b, a := map[string][]byte{}, map[string][]byte{}
	var bk, ak []string
	leaves(before, "", b, &bk)
	leaves(after, "", a, &ak)
	for _, k := range bk {
		if v, ok := a[k]; !ok {
			c.Changed = append(c.Changed, CapChange{Path: k, Before: b[k]})
		} else if string(v) != string(b[k]) {
			c.Changed = append(c.Changed, CapChange{Path: k, Before: b[k], After: v})
		}
	}
	for _, k := range ak {
		if _, ok := b[k]; !ok {
			c.Changed = append(c.Changed, CapChange{Path: k, After: a[k]})
		}
	}
	return c
}

// leaves flattens a JSON object into dotted paths of its non-object
// values (an empty object is a leaf too).
func leaves(v []byte, prefix string, out map[string][]byte, order *[]string) {
	n := 0
	err := rawjson.Members(v, func(key, val []byte) bool {
		n++
		k, _ := rawjson.Unquote(append(append([]byte{'"'}, key...), '"'))
		if prefix != "" {
			k = prefix + "." + k
		}
		leaves(val, k, out, order)
		return true
	})
	if (err != nil || n == 0) && prefix != "" {
		out[prefix] = v
		*order = append(*order, prefix)
	}
}

// timeline bins both sides' messages over the trace's duration.
func timeline(before, after *side, end time.Duration) Timeline {
	width := max(end, time.Millisecond) / timelineBins
	if (max(end, time.Millisecond))%timelineBins != 0 {
		width++
	}
	bin := func(pts []point) Series {
		s := Series{Messages: make([]int64, timelineBins), Bytes: make([]int64, timelineBins)}
		for _, p := range pts {
			i := min(int(p.t/width), timelineBins-1)
			s.Messages[i]++
			s.Bytes[i] += int64(p.n)
		}
		return s
	}
	tl := Timeline{Width: width.Seconds()}
	for _, dir := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		tl.Dirs = append(tl.Dirs, DirSeries{Direction: dir.String(), Before: bin(before.points[dir]), After: bin(after.points[dir])})
	}
	return tl
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clip(s)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

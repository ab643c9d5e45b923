package view

import (
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// sides are one side (received, or delivered) of each connection of a
// trace, in order: --record appends, so a trace may hold several proxy
// runs, each shown apart.
type sides struct {
	all   []*side
	split trace.Connections
	last  time.Duration // the time of the last line fed, on the connection's clock
	line  int           // received lines so far, over the whole trace
	// held are the numbers of the received lines a filter held, per
	// direction, in order: the records of their leaving name them.
	held [2][]int
}

// source is which received message a message was, or was made from (see
// RawMsg.Src).
type source struct {
	line  int
	timer bool
}

// at returns the side rec belongs to, starting a new connection's when rec
// begins one.
func (ss *sides) at(rec trace.Record) *side {
	starts := ss.split.Starts(rec)
	if len(ss.all) == 0 || starts && len(ss.all) < ss.split.N() {
		ss.all = append(ss.all, newSide())
		ss.last = 0
	}
	return ss.all[len(ss.all)-1]
}

// feed feeds a received record's line to the side of its connection (see
// feedRecord), numbered.
func (ss *sides) feed(rec trace.Record) {
	s := ss.at(rec)
	if rec.Conn != nil {
		s.recording = recording(rec.Conn)
	}
	if rec.HasLine && !rec.Released {
		s.cur = source{line: ss.line}
		ss.line++
	}
	ss.last = feedRecord(s, rec, ss.last)
}

// feedReplayed feeds a line a replay delivered to the side of its
// connection, with the received line it names as its source.
func (ss *sides) feedReplayed(rec trace.Record) {
	s := ss.at(rec)
	s.cur = source{line: rec.Src, timer: rec.Timer}
	ss.last = feedRecord(s, rec, ss.last)
}

// feedDelivered feeds what the recording proxy sent for rec to the side
// of its connection (see feedDelivered): its "out" was made from its line,
// a record of lines the proxy added follows the line before, and a held
// line leaving is the line received (the first held of its direction).
func (ss *sides) feedDelivered(rec trace.Record) {
	s := ss.at(rec)
	s.cur = source{line: ss.line - 1, timer: !rec.HasLine}
	switch q := &ss.held[rec.Dir]; {
	case rec.Released && len(*q) > 0:
		s.cur.line, *q = (*q)[0], (*q)[1:]
	case rec.Released:
		s.cur.timer = true // its "held" record is not in this trace
	case rec.HasLine:
		s.cur.line = ss.line
		if rec.Held {
			*q = append(*q, ss.line)
		}
		ss.line++
	}
	ss.last = feedDelivered(s, rec, ss.last)
}

// assembleAll makes the page's data of each connection, before and after
// paired by position, and, for more than one, the data of the whole trace:
// its totals, with each connection's in Connections.
func assembleAll(opt Options, before, after []*side) *Data {
	return assembleSides(opt, before, after, true)
}

// assembleSides is assembleAll; final says nothing more will be fed (see
// assemble).
func assembleSides(opt Options, before, after []*side, final bool) *Data {
	n := max(len(before), len(after), 1)
	at := func(ss []*side, i int) *side {
		if i < len(ss) {
			return ss[i]
		}
		return newSide()
	}
	var conns []*Data
	for i := range n {
		b, a := at(before, i), at(after, i)
		if after == nil {
			a = b // no filters: one side
		}
		conns = append(conns, assemble(opt, b, a, final))
	}
	if n == 1 {
		return conns[0]
	}
	d := &Data{Version: ModelVersion, Trace: opt.Name, Flags: conns[0].Flags, Filters: conns[0].Filters,
		Calls: []Call{}, Conversation: []Event{}, Messages: []Msg{}, Connections: conns}
	d.Session.SessionIDs, d.Session.AuthMethods = []string{}, []string{}
	d.Session.ClientCapabilities.Changed, d.Session.AgentCapabilities.Changed = []CapChange{}, []CapChange{}
	for _, dir := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		total := trace.DirectionReport{Direction: dir.String()}
		for _, c := range conns {
			total.Before.Plus(c.Directions[dir].Before)
			total.After.Plus(c.Directions[dir].After)
		}
		d.Directions = append(d.Directions, total)
	}
	for _, c := range conns {
		d.Duration += c.Duration
		d.Recorded = d.Recorded || c.Recorded
	}
	return d
}

package view

import "github.com/acp-proxy/acp-proxy/internal/trace"

// Live is the page's data of a session still being recorded, fed one
// record at a time: the same analysis as a page of the finished trace
// made without filter flags (what was received, and what the recording
// proxy sent, its records' "out"), so a live page pairs each message with
// what the filters made of it exactly as `acp-proxy view` does. It is not
// safe for concurrent use: one goroutine feeds it and takes its Data.
type Live struct {
	name          string
	filters       []string
	before, after sides
	recorded      bool // a record had "out", or filters ran: there is an after
}

// NewLive starts a live page's data for the trace or session name.
// filters are the filters the recording proxy runs, named by their flags
// (see filters.Chain.Stats), when known: the page then shows each message
// before and after them from the start.
func NewLive(name string, filters []string) *Live {
	return &Live{name: name, filters: nonNil(filters), recorded: len(filters) > 0}
}

// Feed takes the next record.
func (l *Live) Feed(rec trace.Record) {
	l.recorded = l.recorded || rec.HasOut || rec.Held
	l.before.feed(rec)
	l.after.feedDelivered(rec)
}

// Data is what the page shows of the records fed so far. final says
// nothing more will be fed: the data is then what Build makes of the
// whole trace; until then a message being streamed stays open (more of
// it may come).
func (l *Live) Data(final bool) *Data {
	opt := Options{Name: l.name}
	if !l.recorded {
		return assembleSides(opt, l.before.all, nil, final)
	}
	d := assembleSides(opt, l.before.all, l.after.all, final)
	markRecorded(d)
	d.Filters = l.filters
	for _, c := range d.Connections {
		c.Filters = l.filters
	}
	return d
}

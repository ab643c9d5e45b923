package changes

import "github.com/acp-proxy/acp-proxy/filters"

// holdQueue is what waits, in order, to be sent to the client: each ended
// command's report (being made, then sent) with the agent's update that
// ended the call, held a moment so that the diffs reach the client on it;
// and the agent's lines held behind those, or behind the end of a turn
// that awaits the reports. A report whose call's end had to go without it
// is late: its follow-up leaves whenever it is made. Only the
// agent→client pump and its Tick touch it.
type holdQueue struct {
	items   []queued
	late    []*pending // reports whose call's end went without them
	reports int        // reports in items and late
	lines   int        // lines held in items (a report's end included), and their bytes
	bytes   int
}

// queued is a report (its call's end held with it, or none) or a held line.
type queued struct {
	report *pending
	line   *filters.Held // the agent's line, as it arrived (line.Time: when)
	// turnEnd: the line ends a turn; it waits for every report ahead of
	// it, the late ones included, up to maxHold.
	turnEnd bool
}

func (q *holdQueue) addReport(p *pending) {
	q.items = append(q.items, queued{report: p})
	q.reports++
}

// holdEnd holds h, the agent's update that ended p's call (held: it
// leaves as itself, late), with p: it leaves carrying p's diffs
// (filters.EmitHeldAs), or alone once maxCallHold has passed
// (filters.EmitHeld).
func (q *holdQueue) holdEnd(p *pending, h *filters.Held) {
	p.end = h
	q.lines++
	q.bytes += len(h.Raw)
}

// addLine holds h, a copy of a line that arrived at h.Time.
func (q *holdQueue) addLine(h *filters.Held, turnEnd bool) {
	q.items = append(q.items, queued{line: h, turnEnd: turnEnd})
	q.lines++
	q.bytes += len(h.Raw)
}

func (q *holdQueue) empty() bool   { return len(q.items) == 0 }
func (q *holdQueue) front() queued { return q.items[0] }

// pop takes the front item off; a report's end held with it goes with it.
func (q *holdQueue) pop() {
	it := q.items[0]
	switch {
	case it.report != nil && it.report.end != nil:
		q.lines--
		q.bytes -= len(it.report.end.Raw)
		q.reports--
	case it.report != nil:
		q.reports--
	default:
		q.lines--
		q.bytes -= len(it.line.Raw)
	}
	q.items[0] = queued{}
	q.items = q.items[1:]
}

// popLate takes the front report off, its end (released apart) with it,
// and keeps it as late.
func (q *holdQueue) popLate() *pending {
	p := q.front().report
	q.pop()
	p.end = nil
	q.late = append(q.late, p)
	q.reports++
	return p
}

// dropLate forgets the late report at i.
func (q *holdQueue) dropLate(i int) {
	q.late = append(q.late[:i], q.late[i+1:]...)
	q.reports--
}

// holding reports whether agent lines are held: what comes after them
// must queue too.
func (q *holdQueue) holding() bool { return q.lines > 0 }

// awaiting reports whether a report is being made or waits to be sent.
func (q *holdQueue) awaiting() bool { return q.reports > 0 }

// overfull reports whether the lines held are past maxHeldBytes: what
// they wait for is then not waited for.
func (q *holdQueue) overfull() bool { return q.bytes > maxHeldBytes }

// waiting are the reports not made yet, in the queue and late.
func (q *holdQueue) waiting() []*pending {
	var ps []*pending
	for _, it := range q.items {
		if it.report != nil && !it.report.made() {
			ps = append(ps, it.report)
		}
	}
	for _, p := range q.late {
		if !p.made() {
			ps = append(ps, p)
		}
	}
	return ps
}

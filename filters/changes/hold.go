package changes

import (
	"time"

	"github.com/acp-proxy/acp-proxy/filters"
)

// holdQueue is what waits, in order, to be sent to the client: each ended
// command's report (being made, then sent), and the agent's lines held
// behind the end of a turn that awaits those reports. Only the
// agent→client pump and its Tick touch it.
type holdQueue struct {
	items   []queued
	reports int // items that are reports
	lines   int // items that are held lines, their bytes, and when the first was held
	bytes   int
	since   time.Time
}

// queued is a report or a held line.
type queued struct {
	report *pending
	line   *filters.Held // the agent's line, as it arrived
}

func (q *holdQueue) addReport(p *pending) {
	q.items = append(q.items, queued{report: p})
	q.reports++
}

// addLine holds h, a copy of a line that arrived at h.Time.
func (q *holdQueue) addLine(h *filters.Held) {
	if q.lines == 0 {
		q.since = h.Time
	}
	q.items = append(q.items, queued{line: h})
	q.lines++
	q.bytes += len(h.Raw)
}

func (q *holdQueue) empty() bool   { return len(q.items) == 0 }
func (q *holdQueue) front() queued { return q.items[0] }

// pop takes the front item off.
func (q *holdQueue) pop() {
	if it := q.items[0]; it.report != nil {
		q.reports--
	} else {
		q.lines--
		q.bytes -= len(it.line.Raw)
	}
	q.items[0] = queued{}
	q.items = q.items[1:]
}

// holding reports whether agent lines are held: what comes after them
// must queue too.
func (q *holdQueue) holding() bool { return q.lines > 0 }

// awaiting reports whether a report is being made or waits to be sent.
func (q *holdQueue) awaiting() bool { return q.reports > 0 }

// overdue reports whether the lines held have waited long enough at now:
// past maxHold, or past maxHeldBytes; the reports they wait for are then
// given up.
func (q *holdQueue) overdue(now time.Time) bool {
	return q.lines > 0 && (!now.Before(q.deadline()) || q.bytes > maxHeldBytes)
}

// deadline is when the lines held are overdue; zero when none is held.
func (q *holdQueue) deadline() time.Time {
	if q.lines == 0 {
		return time.Time{}
	}
	return q.since.Add(maxHold)
}

// waiting are the reports in the queue not made yet.
func (q *holdQueue) waiting() []*pending {
	var ps []*pending
	for _, it := range q.items {
		if it.report != nil && !it.report.made() {
			ps = append(ps, it.report)
		}
	}
	return ps
}

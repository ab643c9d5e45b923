package changes

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// job is an ended command whose report is being made, then sent; or a
// line held behind such reports (line set, call nil).
type job struct {
	line   []byte
	call   *call
	status string
	ended  int64         // the filter's clock when the call ended
	done   chan struct{} // closed once report is set
	report []byte        // the Report as JSON; nil in a replay
	err    error
	// later are the calls of the session that started while the report
	// was being made (at most maxOthers; moreLater counts the rest).
	later     []*call
	moreLater int
}

// newJob makes c's report on a goroutine (none in a replay: the trace
// holds it), from the before-state once it is taken.
func newJob(c *call, status string, replaying bool, clock int64) *job {
	j := &job{call: c, status: status, ended: clock, done: make(chan struct{})}
	if replaying {
		close(j.done)
		return j
	}
	go func() {
		defer close(j.done)
		if c.before == nil {
			j.report, j.err = json.Marshal(Report{Files: []Change{},
				Note: fmt.Sprintf("not looked at: more than %d commands ran at once", maxSnapshots)})
			return
		}
		r := c.before.changes()
		r.Since, r.Earlier = c.since, c.earlier
		j.report, j.err = json.Marshal(r)
		c.before.release()
	}()
	return j
}

// ready reports whether j's report is made.
func (j *job) ready() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// question is what the filter asks the disk for j: the trace records the
// answer, so a replay sends the same update.
func (j *job) question() filters.DiskRead {
	args, _ := json.Marshal(map[string]string{"sessionId": j.call.key.session, "toolCallId": j.call.key.id})
	return filters.DiskRead{Kind: "changes", Path: j.call.cwd, Args: args}
}

// Tick sends the updates of the calls whose report is ready, and the lines
// held behind them, in order; while a report is being made it asks to be
// called again soon.
func (f *Filter) Tick(d acp.Direction, now time.Time, out filters.Emitter) time.Time {
	if d != acp.AgentToClient {
		return time.Time{}
	}
	for len(f.queue) > 0 {
		j := f.queue[0]
		if j.line != nil {
			f.queue = f.queue[1:]
			f.held, f.heldBytes = f.held-1, f.heldBytes-len(j.line)
			if err := out.Emit(acp.AgentToClient, j.line); err != nil {
				return time.Time{}
			}
			continue
		}
		waited := f.held > 0 && (now.Sub(f.holdStart) > maxHold || f.heldBytes > maxHeldBytes)
		if !j.ready() && !waited {
			return now.Add(pollInterval)
		}
		r, err := f.read(j, now)
		if errors.Is(err, filters.ErrNotRead) && !waited {
			return time.Time{} // a replay: the trace's read record comes later
		}
		f.queue = f.queue[1:]
		if err := f.send(j, r, err, out); err != nil {
			return time.Time{}
		}
	}
	return time.Time{}
}

// send emits j's update for report r (read with err).
func (f *Filter) send(j *job, r Report, err error, out filters.Emitter) error {
	defer func() { j.call.content, j.call.others = nil, nil }() // sent: what other calls name of it is its title
	if err != nil {
		f.log().Warn("show-changes: no report for a command", "toolCallId", j.call.key.id, "err", err)
		return nil
	}
	if line := f.updateFor(j, r); line != nil {
		return out.Emit(acp.AgentToClient, line)
	}
	return nil
}

// hold queues a copy of m behind the reports being made: the end of a
// turn must not overtake the updates of its commands, nor anything after
// it the end of the turn.
func (f *Filter) hold(m *filters.Message) error {
	if f.held == 0 {
		f.holdStart = m.Time
	}
	f.held++
	f.heldBytes += len(m.Raw)
	f.queue = append(f.queue, &job{line: append([]byte(nil), m.Raw...)})
	return filters.Drop
}

// holding reports whether an agent→client message must queue: a report
// is being made, and the end of a turn already waits for it.
func (f *Filter) holding() bool { return f.held > 0 }

// waiting reports whether a report is being made or waits to be sent.
func (f *Filter) waiting() bool {
	for _, j := range f.queue {
		if j.line == nil {
			return true
		}
	}
	return false
}

// read is j's report, through the disk.
func (f *Filter) read(j *job, now time.Time) (Report, error) {
	m := &filters.Message{Message: acp.Message{Dir: acp.AgentToClient, Time: now}, Disk: f.disk}
	answer, err := m.ReadDisk(j.question(), func() ([]byte, error) {
		if j.report == nil && j.err == nil {
			return nil, filters.ErrNotRead
		}
		if j.err != nil || len(j.later) == 0 {
			return j.report, j.err
		}
		var r Report
		if err := json.Unmarshal(j.report, &r); err != nil {
			return nil, err
		}
		r.Later = names(j.later, j.moreLater)
		return json.Marshal(r)
	})
	if err != nil {
		return Report{}, err
	}
	var r Report
	if err := json.Unmarshal(answer, &r); err != nil {
		return Report{}, fmt.Errorf("show-changes: a report that is not one: %w", err)
	}
	return r, nil
}

// Drain sends what is ready once the reports being made are (within
// drainWait); in a replay, what the trace answers.
func (f *Filter) Drain(d acp.Direction, out filters.Emitter) {
	if d != acp.AgentToClient {
		return
	}
	deadline := time.Now().Add(drainWait)
	for len(f.queue) > 0 {
		if !f.Replaying && f.queue[0].line == nil {
			for !f.queue[0].ready() && time.Now().Before(deadline) {
				time.Sleep(pollInterval)
			}
		}
		before := len(f.queue)
		f.Tick(d, time.Now(), out)
		if len(f.queue) == before {
			f.log().Warn("show-changes: reports not sent at the end of the agent's output", "calls", len(f.queue))
			f.dropWaiting(out)
		}
	}
}

// dropWaiting gives up on the reports still awaited, sending the lines
// held behind them.
func (f *Filter) dropWaiting(out filters.Emitter) {
	for _, j := range f.queue {
		if j.line != nil {
			_ = out.Emit(acp.AgentToClient, j.line)
		}
	}
	f.queue, f.held, f.heldBytes = nil, 0, 0
}

package changes

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// question is what the filter asks the disk for p: the trace records the
// answer, so a replay sends the same update.
func (p *pending) question() filters.DiskRead {
	args, _ := json.Marshal(map[string]string{"sessionId": p.call.key.session, "toolCallId": p.call.key.id})
	return filters.DiskRead{Kind: "changes", Path: p.call.cwd, Args: args}
}

// Tick sends the updates of the calls whose report is made, and the lines
// held behind them, in order. It never asks to be called just to look: the
// scanner wakes the clock when a report is made; it asks for the moment
// the lines held are overdue, when the reports they wait for are given up.
func (f *Filter) Tick(d acp.Direction, now time.Time, out filters.Emitter) time.Time {
	if d != acp.AgentToClient {
		return time.Time{}
	}
	return f.release(now, out, f.queue.overdue(now))
}

// release sends what the queue holds up to the first report not made (all
// of it when giveUp: a report not made is given up) and returns when it
// next wants to be called.
func (f *Filter) release(now time.Time, out filters.Emitter, giveUp bool) time.Time {
	for !f.queue.empty() {
		it := f.queue.front()
		if it.line != nil {
			f.queue.pop()
			if err := filters.EmitHeld(out, it.line); err != nil {
				return time.Time{}
			}
			continue
		}
		p := it.report
		if !p.made() {
			if !giveUp {
				return f.queue.deadline()
			}
			f.queue.pop()
			f.gaveUp(p) // its fields are the scanner's until it is made: not read
			continue
		}
		r, err := f.read(p, now)
		if errors.Is(err, filters.ErrNotRead) && !giveUp {
			return f.queue.deadline() // a replay: the trace's read record comes later
		}
		f.queue.pop()
		if err := f.send(p, r, err, out); err != nil {
			return time.Time{}
		}
	}
	return time.Time{}
}

// gaveUp notes that p's report was not waited for.
func (f *Filter) gaveUp(p *pending) {
	f.log().Warn("show-changes: a command's report was not made in time; its changes are not shown",
		"toolCallId", p.call.key.id)
	p.call.content, p.call.others = nil, nil
}

// send emits p's update for report r (read with err).
func (f *Filter) send(p *pending, r Report, err error, out filters.Emitter) error {
	defer func() { p.call.content, p.call.others = nil, nil }() // sent: what other calls name of it is its title
	if err != nil {
		f.log().Warn("show-changes: no report for a command", "toolCallId", p.call.key.id, "err", err)
		return nil
	}
	if line := f.updateFor(p, r); line != nil {
		return out.Emit(acp.AgentToClient, line)
	}
	return nil
}

// hold queues a copy of m behind the reports being made: the end of a
// turn must not overtake the updates of its commands, nor anything after
// it the end of the turn.
func (f *Filter) hold(m *filters.Message) error {
	f.queue.addLine(m.Hold())
	return filters.Drop
}

// read is p's report, made, through the disk.
func (f *Filter) read(p *pending, now time.Time) (Report, error) {
	m := &filters.Message{Message: acp.Message{Dir: acp.AgentToClient, Time: now}, Disk: f.disk}
	answer, err := m.ReadDisk(p.question(), func() ([]byte, error) {
		if p.report == nil && p.err == nil {
			return nil, filters.ErrNotRead // a replay makes none
		}
		if p.err != nil || len(p.later) == 0 {
			return p.report, p.err
		}
		var r Report
		if err := json.Unmarshal(p.report, &r); err != nil {
			return nil, err
		}
		r.Later = names(p.later, p.moreLater)
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

// Drain sends what the queue holds once the reports being made are made
// (within drainWait, waiting on them, not polling); in a replay, what the
// trace answers. What is not made by then is given up.
func (f *Filter) Drain(d acp.Direction, out filters.Emitter) {
	if d != acp.AgentToClient {
		return
	}
	deadline := time.Now().Add(drainWait)
	for !f.queue.empty() {
		if it := f.queue.front(); !f.Replaying && it.report != nil {
			it.report.wait(deadline)
		}
		before := len(f.queue.items)
		f.release(time.Now(), out, false)
		if len(f.queue.items) == before {
			f.log().Warn("show-changes: reports not sent at the end of the agent's output", "calls", f.queue.reports)
			f.release(time.Now(), out, true)
		}
	}
}

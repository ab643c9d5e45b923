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

// maxCallHold bounds how long the agent's update that ends a command (and
// what comes after it) waits for the command's report: made by then, the
// diffs leave on that update; not, it leaves alone and a follow-up brings
// them.
const maxCallHold = 200 * time.Millisecond

// Tick sends what the queue holds, in order, up to what still waits: a
// call's end whose report is not made (until maxCallHold), the end of a
// turn whose reports are not sent (until maxHold); and the follow-ups of
// the late reports made. It never asks to be called just to look: the
// scanner wakes the clock when a report is made; it asks for the moment
// what waits stops waiting.
func (f *Filter) Tick(d acp.Direction, now time.Time, out filters.Emitter) time.Time {
	if d != acp.AgentToClient {
		return time.Time{}
	}
	f.now = now
	return f.release(now, out, f.queue.overfull())
}

// release sends what the queue holds up to the first item that waits (none
// waits when giveUp) and returns when it next wants to be called.
func (f *Filter) release(now time.Time, out filters.Emitter, giveUp bool) time.Time {
	for {
		if err := f.sendLate(now, out); err != nil || f.queue.empty() {
			return time.Time{}
		}
		it := f.queue.front()
		var wait time.Time
		var err error
		switch {
		case it.report != nil:
			wait, err = f.releaseReport(it.report, now, out, giveUp)
		case it.turnEnd && len(f.queue.late) > 0 && !giveUp && now.Before(it.line.Time.Add(maxHold)):
			wait = it.line.Time.Add(maxHold)
		default:
			if it.turnEnd && len(f.queue.late) > 0 {
				f.log().Warn("show-changes: the end of a turn went before the reports of its commands; they follow it", "calls", len(f.queue.late))
			}
			f.queue.pop()
			err = filters.EmitHeld(out, it.line)
		}
		if err != nil || !wait.IsZero() {
			return wait
		}
	}
}

// releaseReport sends the queue's front report p on its call's end, once
// made; past maxCallHold (or giving up), the end leaves alone and p is
// late. A report without an end (its call ended with its turn) is late at
// once. It returns when to look again, while p waits.
func (f *Filter) releaseReport(p *pending, now time.Time, out filters.Emitter, giveUp bool) (time.Time, error) {
	end := p.end
	if end == nil {
		f.queue.popLate()
		return time.Time{}, nil
	}
	deadline := end.Time.Add(maxCallHold)
	if giveUp || !now.Before(deadline) {
		f.queue.popLate()
		return time.Time{}, filters.EmitHeld(out, end)
	}
	if !p.made() {
		return deadline, nil
	}
	r, err := f.read(p, now)
	if errors.Is(err, filters.ErrNotRead) {
		return deadline, nil // a replay: the trace's read record comes later
	}
	f.queue.pop()
	defer p.call.forget()
	if err != nil {
		f.log().Warn("show-changes: no report for a command", "toolCallId", p.call.key.id, "err", err)
	} else if line := f.endWith(p, end.Raw, r); line != nil {
		return time.Time{}, filters.EmitHeldAs(out, end, line)
	}
	return time.Time{}, filters.EmitHeld(out, end)
}

// sendLate sends the follow-ups of the late reports made.
func (f *Filter) sendLate(now time.Time, out filters.Emitter) error {
	for i := 0; i < len(f.queue.late); {
		p := f.queue.late[i]
		if !p.made() {
			i++
			continue
		}
		r, err := f.read(p, now)
		if errors.Is(err, filters.ErrNotRead) {
			i++
			continue
		}
		f.queue.dropLate(i)
		if err := f.sendFollowUp(p, r, err, out); err != nil {
			return err
		}
	}
	return nil
}

// gaveUp notes that p's report was not waited for.
func (f *Filter) gaveUp(p *pending) {
	f.log().Warn("show-changes: a command's report was not made in time; its changes are not shown",
		"toolCallId", p.call.key.id)
	p.call.forget()
}

// sendFollowUp emits the update that brings report r (read with err) to
// p's call after the call's end went without it.
func (f *Filter) sendFollowUp(p *pending, r Report, err error, out filters.Emitter) error {
	defer p.call.forget()
	if err != nil {
		f.log().Warn("show-changes: no report for a command", "toolCallId", p.call.key.id, "err", err)
		return nil
	}
	if line := f.followUp(p, r); line != nil {
		return out.Emit(acp.AgentToClient, line)
	}
	return nil
}

// hold queues a copy of m behind what is held: the end of a turn must not
// overtake the updates of its commands, nor anything after a held line
// that line.
func (f *Filter) hold(m *filters.Message, turnEnd bool) error {
	f.queue.addLine(m.Hold(), turnEnd)
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
	if !f.Replaying {
		for _, p := range f.queue.waiting() {
			p.wait(deadline)
		}
	}
	// The time of the last line or Tick: what waited for its report
	// until now waited on it, as a replay of the trace does.
	now := f.now
	f.release(now, out, false)
	f.release(now, out, true)
	if n := len(f.queue.late); n > 0 {
		f.log().Warn("show-changes: reports not sent at the end of the agent's output", "calls", n)
		for len(f.queue.late) > 0 {
			f.gaveUp(f.queue.late[0]) // its fields are the scanner's until it is made: not read
			f.queue.dropLate(0)
		}
	}
}

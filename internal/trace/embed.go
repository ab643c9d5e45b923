package trace

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// EmbedReads copies the trace in r to w with what chain's filters read from
// this machine's disk added as "read" records, each before the record of the
// message it was read for: a trace recorded without those filters, or before
// traces carried reads, made self-contained where the session's files still
// are (or were put back). Every record is copied byte for byte, and "read"
// records already there answer their questions again. The chain runs as in
// a replay, timers on the recorded clock, so a read a timer makes lands
// before the record a replay reaches it at.
func EmbedReads(ctx context.Context, chain *filters.Chain, r io.Reader, w io.Writer) error {
	disk := &embedDisk{clock: filters.NewManualClock(time.Time{})}
	chain.Disk = disk
	disk.driver = filters.NewDriver(chain, disk.clock, discard)
	in := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriterSize(w, 64<<10)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, rerr := in.ReadBytes('\n')
		if len(line) == 0 && rerr != nil {
			if rerr == io.EOF {
				break
			}
			return fmt.Errorf("reading trace: %w", rerr)
		}
		body := line
		if body[len(body)-1] == '\n' {
			body = body[:len(body)-1]
		}
		if len(rawjson.TrimSpace(body)) > 0 {
			rec, err := parseRecord(body)
			if err != nil {
				return &Error{Line: n, Err: err}
			}
			if err := disk.ask(chain, rec, out); err != nil {
				return err
			}
		}
		if _, err := out.Write(line); err != nil {
			return err
		}
	}
	if err := disk.end(out); err != nil {
		return err
	}
	return out.Flush()
}

// discard is where the lines the chain writes go: only its reads count.
func discard(filters.Line) error { return nil }

// embedDisk answers from the trace's own "read" records, else from the OS,
// collecting the OS's answers.
type embedDisk struct {
	trace  Disk
	got    []DiskAnswer
	clock  *filters.ManualClock
	driver *filters.Driver
	last   time.Duration // the time of the last record with a line
}

func (d *embedDisk) Read(_ *filters.Message, q filters.DiskRead, read func() ([]byte, error)) ([]byte, error) {
	if answer, err, ok := d.trace.take(q); ok {
		return answer, err
	}
	answer, err := read()
	a := DiskAnswer{DiskRead: q, Answer: answer}
	if err != nil {
		a.Err = err.Error()
	}
	d.got = append(d.got, a)
	return answer, err
}

// ask runs rec's line through the chain and writes the reads it made.
func (d *embedDisk) ask(chain *filters.Chain, rec Record, out io.Writer) error {
	if rec.Read != nil {
		d.trace.add(*rec.Read)
		return nil
	}
	if !rec.HasLine || rec.Released { // as a replay, which the chain's own holds release
		return nil
	}
	var epoch time.Time // the recorded clock, as Replay keeps it
	if err := d.clock.Advance(epoch.Add(rec.T)); err != nil {
		return err
	}
	m := filters.NewMessage(rec.Dir, rec.Line, epoch.Add(rec.T), nil)
	if err := d.driver.Process(m, discard); err != nil {
		return err
	}
	if err := d.driver.Tick(rec.Dir); err != nil {
		return err
	}
	d.last = rec.T
	return d.write(out, rec.T, rec.Dir)
}

// end lets what the chain still holds go, as a replay's end does, and
// writes the reads that took.
func (d *embedDisk) end(out io.Writer) error {
	for _, dir := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		if err := d.driver.Drain(dir); err != nil {
			return err
		}
		if err := d.write(out, d.last, dir); err != nil {
			return err
		}
	}
	return nil
}

// write writes the reads the chain made since the last call as records of
// time t and direction dir.
func (d *embedDisk) write(out io.Writer, t time.Duration, dir acp.Direction) error {
	for _, a := range d.got {
		b := AppendHeader(nil, t, dir)
		b = append(b, ',')
		b = appendRead(b, a)
		if _, err := out.Write(append(b, '}', '\n')); err != nil {
			return err
		}
	}
	d.got = d.got[:0]
	return nil
}

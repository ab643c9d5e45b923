package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// EmbedReads copies the trace in r to w with what chain's filters read from
// this machine's disk added as "read" records, each before the record of the
// message it was read for: a trace recorded without those filters, or before
// traces carried reads, made self-contained where the session's files still
// are (or were put back). Every record is copied byte for byte, and "read"
// records already there answer their questions again. Timers do not run:
// filters read the disk only for a message.
func EmbedReads(ctx context.Context, chain *filters.Chain, r io.Reader, w io.Writer) error {
	disk := &embedDisk{}
	chain.Disk = disk
	in := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriterSize(w, 64<<10)
	for n := 1; ; n++ {
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
				return &TraceError{Line: n, Err: err}
			}
			if err := disk.ask(chain, rec, out); err != nil {
				return err
			}
		}
		if _, err := out.Write(line); err != nil {
			return err
		}
	}
	return out.Flush()
}

// embedDisk answers from the trace's own "read" records, else from the OS,
// collecting the OS's answers.
type embedDisk struct {
	trace TraceDisk
	got   []DiskAnswer
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
func (d *embedDisk) ask(chain *filters.Chain, rec TraceRecord, out io.Writer) error {
	if rec.Read != nil {
		d.trace.add(*rec.Read)
		return nil
	}
	if !rec.HasLine {
		return nil
	}
	var epoch time.Time // the recorded clock, as Replay keeps it
	m := filters.NewMessage(rec.Dir, rec.Line, epoch.Add(rec.T), nil)
	discard := func(filters.Line) error { return nil }
	if err := chain.Process(m, discard); err != nil {
		return err
	}
	for _, a := range d.got {
		b := AppendHeader(nil, rec.T, rec.Dir)
		b = append(b, ',')
		b = appendRead(b, a)
		if _, err := out.Write(append(b, '}', '\n')); err != nil {
			return err
		}
	}
	d.got = d.got[:0]
	return nil
}

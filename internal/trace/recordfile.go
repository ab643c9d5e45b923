package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"time"
)

// FlushDelay is how long a record written to a file (RecordFile) waits in
// memory at most: a proxy killed with SIGKILL, which runs no code, loses
// the records of its last FlushDelay, and the trace before them reads.
const FlushDelay = time.Second

// RecordFile records into the file f (--record), with times relative to
// start, gzip'd when gz (see members). What is recorded is written to the
// file FlushDelay after a record at most, when a direction's input ends,
// and at Close. Call Close when done.
//
// The file is written on a goroutine of its own (see fileWriter): a file
// that blocks or fails stops the recording, never the relay.
func RecordFile(f io.WriteCloser, start time.Time, gz bool) *Recorder {
	fw := newFileWriter(f)
	var w io.Writer = fw
	var zm *members
	if gz {
		zm = newMembers(fw)
		w = zm
	}
	r := NewRecorder(w, start)
	r.gz, r.file, r.flushDelay = zm, fw, FlushDelay
	return r
}

// Close writes what is buffered and closes the file of a RecordFile;
// records after it are dropped.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.err
	}
	err := r.w.Flush()
	if err == nil && r.gz != nil {
		err = r.gz.end()
	}
	if r.flushTimer != nil {
		r.flushTimer.Stop()
	}
	r.closed = true
	if r.file != nil {
		err = errors.Join(err, r.file.Close())
	}
	return errors.Join(r.err, err)
}

// maxMember is how much compressed trace a gzip member holds in memory at
// most before it is written out whole.
const maxMember = 1 << 20

// members writes a gzip'd trace as a sequence of whole gzip members, one
// per flush (or per maxMember of compressed bytes): each is compressed in
// memory and written to the file with one write. gzip readers read the
// members as one stream. So the file holds whole members however the proxy
// ends (one killed with SIGKILL loses the member it was making, the records
// of its last FlushDelay), and a later run that appends to the file
// (--record appends) leaves it readable, as with an uncompressed trace.
type members struct {
	file    io.Writer
	buf     bytes.Buffer
	zw      *gzip.Writer
	pending bool // the member holds something
}

func newMembers(file io.Writer) *members {
	m := &members{file: file}
	m.zw = gzip.NewWriter(&m.buf)
	return m
}

func (m *members) Write(p []byte) (int, error) {
	m.pending = m.pending || len(p) > 0
	n, err := m.zw.Write(p)
	if err == nil && m.buf.Len() >= maxMember {
		err = m.end()
	}
	return n, err
}

// end ends the member being made and writes it to the file, whole.
func (m *members) end() error {
	if !m.pending {
		return nil
	}
	if err := m.zw.Close(); err != nil {
		return err
	}
	_, err := m.file.Write(m.buf.Bytes())
	m.buf.Reset()
	m.zw.Reset(&m.buf)
	m.pending = false
	return err
}

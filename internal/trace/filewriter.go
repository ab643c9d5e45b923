package trace

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// maxUnwritten bounds the trace a RecordFile holds that its file has not
// taken yet. Past it the file is not keeping up, and recording stops: the
// relay never waits for its trace.
const maxUnwritten = 64 << 20

// closeWait bounds how long Close waits for the file to take what is left.
const closeWait = 5 * time.Second

// errBehind is why a trace stopped when its file did not keep up.
var errBehind = fmt.Errorf("the trace file is not keeping up (%d MiB not yet written): recording stopped, the relay went on", maxUnwritten>>20)

// fileWriter writes a trace to its file on a goroutine of its own, in the
// order it was given: a file that blocks (a pipe nobody reads, a network
// mount that hangs) or fails never holds up the relay, whose pumps write
// the trace. Each Write is handed to the file whole, or with others after
// it: what reaches the file is still whole records (and whole gzip
// members).
type fileWriter struct {
	f         io.WriteCloser
	wake      chan struct{} // one token: something to write, or closed
	done      chan struct{} // the goroutine ended
	closeWait time.Duration
	max       int // maxUnwritten

	mu      sync.Mutex
	idle    *sync.Cond // signalled, on mu, when the file has taken all
	pending []byte
	writing bool  // the goroutine is handing a batch to the file
	err     error // the file failed, or fell behind: writes fail with it
	closed  bool
}

func newFileWriter(f io.WriteCloser) *fileWriter {
	w := &fileWriter{f: f, wake: make(chan struct{}, 1), done: make(chan struct{}), closeWait: closeWait, max: maxUnwritten}
	w.idle = sync.NewCond(&w.mu)
	go w.run()
	return w
}

// Write queues p for the file, and never waits for it.
func (w *fileWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.err != nil:
		return 0, w.err
	case len(w.pending)+len(p) > w.max:
		w.err, w.pending = errBehind, nil
		w.idle.Broadcast()
		return 0, w.err
	}
	w.pending = append(w.pending, p...)
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// run hands what is queued to the file until Close. A file that panics
// fails like one that returns an error.
func (w *fileWriter) run() {
	defer close(w.done)
	var spare []byte
	for range w.wake {
		w.mu.Lock()
		batch, closed := w.pending, w.closed
		w.pending, w.writing = spare[:0], true
		w.mu.Unlock()
		err := w.write(batch)
		w.mu.Lock()
		if err != nil {
			w.err, w.pending = err, nil
		}
		w.writing = false
		w.idle.Broadcast()
		w.mu.Unlock()
		spare = batch
		if closed {
			return
		}
	}
}

// written waits until the file has taken what was queued (or failed).
func (w *fileWriter) written() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for (len(w.pending) > 0 || w.writing) && w.err == nil {
		w.idle.Wait()
	}
}

func (w *fileWriter) write(b []byte) (err error) {
	if len(b) == 0 {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("writing the trace file panicked: %v", v)
		}
	}()
	_, err = w.f.Write(b)
	return err
}

// Close waits, closeWait at most, for the file to take what is queued,
// then closes it (which ends a write still blocked on it, if the file can
// be interrupted).
func (w *fileWriter) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	t := time.NewTimer(w.closeWait)
	defer t.Stop()
	var late error
	select {
	case <-w.done:
	case <-t.C:
		late = fmt.Errorf("the trace file did not take its last records within %s", w.closeWait)
	}
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	return errors.Join(err, late, w.f.Close())
}

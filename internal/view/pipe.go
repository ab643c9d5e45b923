package view

import (
	"io"
	"sync"
)

// pipe is an io.Pipe with a buffer: the writer runs ahead of the reader
// by up to pipeChunks writes, so the replay and the analysis of what it
// delivers each run at their own pace instead of taking turns at every
// write.
type pipe struct {
	ch   chan []byte
	cur  []byte
	once sync.Once
	err  error // why the writer closed (io.EOF: it finished)
	done chan struct{}
}

const pipeChunks = 64

func newPipe() *pipe { return &pipe{ch: make(chan []byte, pipeChunks), done: make(chan struct{})} }

// Write copies p into the pipe; it blocks while the buffer is full.
func (p *pipe) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	select {
	case p.ch <- append([]byte(nil), b...):
		return len(b), nil
	case <-p.done:
		return 0, io.ErrClosedPipe
	}
}

// CloseWithError ends the stream: the reader gets err after the buffered
// bytes (io.EOF for nil). The writer must not write after it.
func (p *pipe) CloseWithError(err error) {
	p.once.Do(func() {
		if err == nil {
			err = io.EOF
		}
		p.err = err
		close(p.ch)
	})
}

// Read reads what was written, in order.
func (p *pipe) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		c, ok := <-p.ch
		if !ok {
			return 0, p.err
		}
		p.cur = c
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// abandon tells writers the reader is gone (they get io.ErrClosedPipe).
func (p *pipe) abandon() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
}

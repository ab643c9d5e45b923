package view

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// rawSamples is how many updates of a call each side keeps from its start
// and from its end for the raw comparison.
const rawSamples = 3

// callAcc applies one side's updates of one tool call as a client does.
// It keeps the latest value of each field as a slice of the line that
// carried it, and decodes them once, at the end.
type callAcc struct {
	id                  string
	first, last         time.Duration
	count               Count
	title, kind, status string
	content, locations  []byte
	rawInput, rawOutput []byte
	terminals           []*termAcc

	head, tail []sample // the first and (a ring of) the last updates
	n          int
}

type termAcc struct {
	id             string
	out            textAcc
	exit, signal   []byte
	exited, stream bool
}

type sample struct {
	t    time.Duration
	line []byte
	src  source
}

func newCall(id string, t time.Duration) *callAcc { return &callAcc{id: id, first: t} }

// apply takes one tool_call or tool_call_update of the line, and returns
// a one-line description of it: the members it carries, in its order.
func (c *callAcc) apply(t time.Duration, u *acp.ToolUpdate, line []byte, src source) string {
	c.last = max(c.last, t)
	c.count.Line(len(line))
	c.keep(t, line, src)
	var desc []string
	for _, k := range u.Order() {
		switch k {
		case acp.MemberTitle:
			c.title = u.Title
			desc = append(desc, c.title)
		case acp.MemberKind:
			c.kind = u.Kind
		case acp.MemberStatus:
			c.status = u.Status
			desc = append(desc, c.status)
		case acp.MemberContent:
			c.content = u.Content
			desc = append(desc, "content "+size(len(u.Content)))
		case acp.MemberLocations:
			c.locations = u.Locations
		case acp.MemberRawInput:
			c.rawInput = u.RawInput
		case acp.MemberRawOutput:
			c.rawOutput = u.RawOutput
			desc = append(desc, "rawOutput "+size(len(u.RawOutput)))
		case acp.MemberMeta:
			desc = append(desc, c.meta(u.Term)...)
		}
	}
	return joinNonEmpty(desc)
}

// meta applies the terminal-output extension's keys.
func (c *callAcc) meta(tm acp.TermMeta) []string {
	var desc []string
	ids := tm.TerminalIDs()
	if tm.Info != nil {
		c.terminal(ids[0])
		desc = append(desc, acp.MetaTerminalInfo)
	}
	output, delta := acp.Data(tm)
	for i, o := range [...]struct {
		key  string
		val  []byte
		data string
	}{{acp.MetaTerminalOutput, tm.Output, output}, {acp.MetaTerminalOutputDelta, tm.OutputDelta, delta}} {
		if o.val == nil {
			continue
		}
		term := c.terminal(ids[1+i])
		term.out.write([]byte(o.data))
		term.stream = true
		desc = append(desc, o.key+" "+size(len(o.data)))
	}
	if tm.Exit != nil {
		term := c.terminal(ids[3])
		term.exited = true
		term.exit, term.signal = tm.ExitStatus()
		desc = append(desc, acp.MetaTerminalExit+" "+string(term.exit))
	}
	return desc
}

func (c *callAcc) terminal(id string) *termAcc {
	for _, t := range c.terminals {
		if t.id == id {
			return t
		}
	}
	t := &termAcc{id: id}
	c.terminals = append(c.terminals, t)
	return t
}

func (c *callAcc) keep(t time.Duration, line []byte, src source) {
	c.n++
	s := sample{t, line, src}
	switch {
	case len(c.head) < rawSamples:
		c.head = append(c.head, s)
	case len(c.tail) < rawSamples:
		c.tail = append(c.tail, s)
	default:
		c.tail[(c.n-1-rawSamples)%rawSamples] = s
	}
}

// samples are the kept updates, in order, elided, and how many were not
// kept.
func (c *callAcc) samples() ([]RawMsg, int64) {
	kept := append([]sample(nil), c.head...)
	if c.n <= 2*rawSamples {
		kept = append(kept, c.tail...)
	} else {
		start := (c.n - rawSamples) % rawSamples
		kept = append(append(kept, c.tail[start:]...), c.tail[:start]...)
	}
	out := make([]RawMsg, 0, len(kept))
	for _, s := range kept {
		r := rawMsg(s.t, s.line)
		r.Src, r.Timer = s.src.line, s.src.timer
		out = append(out, r)
	}
	return out, int64(c.n - len(kept))
}

func rawMsg(t time.Duration, line []byte) RawMsg {
	r := RawMsg{T: secs(t), Bytes: len(line) + 1}
	if e := elideJSON(line); e != nil {
		r.Msg = e
	} else {
		txt := makeText(line)
		r.Line = &txt
	}
	return r
}

// state decodes the call as a client shows it after every update.
func (c *callAcc) state() *CallState {
	st := &CallState{Title: c.title, Kind: c.kind, Status: c.status, Updates: c.count.Messages,
		Content: []Content{}, Locations: []string{}, Terminals: []Terminal{}}
	_ = rawjson.Elements(c.content, func(_ int, item []byte) bool {
		st.Content = append(st.Content, decodeContent(item))
		return true
	})
	_ = rawjson.Elements(c.locations, func(_ int, loc []byte) bool {
		p, _ := rawjson.GetString(loc, "path")
		if line, ok := rawjson.Get(loc, "line"); ok && string(line) != "null" {
			p += ":" + string(line)
		}
		st.Locations = append(st.Locations, p)
		return true
	})
	st.RawInput = prettyText(c.rawInput)
	st.RawOutput = prettyText(c.rawOutput)
	for _, t := range c.terminals {
		st.Terminals = append(st.Terminals, Terminal{ID: t.id, Output: t.out.text(), ExitCode: t.exit, Signal: t.signal, Exited: t.exited})
	}
	return st
}

func decodeContent(item []byte) Content {
	typ, _ := rawjson.GetString(item, "type")
	c := Content{Type: typ}
	switch typ {
	case "content":
		block, _ := rawjson.Get(item, "content")
		c.Block, _ = rawjson.GetString(block, "type")
		var t Text
		if c.Block == "text" {
			s, _ := rawjson.GetString(block, "text")
			t = makeText([]byte(s))
		} else {
			t = *prettyText(block)
		}
		c.Text = &t
	case "diff":
		c.Path, _ = rawjson.GetString(item, "path")
		if s, ok := rawjson.GetString(item, "oldText"); ok {
			t := makeText([]byte(s))
			c.OldText = &t
		}
		s, _ := rawjson.GetString(item, "newText")
		t := makeText([]byte(s))
		c.NewText = &t
	case "terminal":
		c.TerminalID, _ = rawjson.GetString(item, "terminalId")
	default:
		c.Text = prettyText(item)
	}
	return c
}

// prettyText is a JSON value, elided and indented, as text; nil for none.
func prettyText(v []byte) *Text {
	if len(v) == 0 {
		return nil
	}
	e := elideJSON(v)
	if e == nil {
		t := makeText(v)
		return &t
	}
	var b bytes.Buffer
	if err := json.Indent(&b, e, "", "  "); err != nil {
		b.Reset()
		b.Write(e)
	}
	t := makeText(b.Bytes())
	return &t
}

func joinNonEmpty(parts []string) string {
	var b bytes.Buffer
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// size is n bytes for people.
func size(n int) string {
	switch {
	case n >= 1<<20:
		return trimFloat(float64(n)/(1<<20)) + " MiB"
	case n >= 1<<10:
		return trimFloat(float64(n)/(1<<10)) + " KiB"
	}
	return itoa(int64(n)) + " B"
}

package changes

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// shownItems are the content items that show r on p's call, each followed
// by a comma: a note saying what changed (and, for a file without a diff,
// why), then a diff per file, within Limits.MaxUpdateBytes of diffs. nil
// when there is nothing to show: no change, or only changes a diff
// already showed.
func (f *Filter) shownItems(p *pending, r Report) []byte {
	c := p.call
	from := c.from
	if r.Earlier && !c.earlier { // a replay: the live proxy took the rest before
		from = c.prevFrom
	}
	if r.Aside && f.saidAside(c.key.session) {
		return nil
	}
	var shown []Change
	for _, ch := range r.Files {
		if f.wasShown(c.key.session, ch.Path, ch.Hash, from) {
			continue
		}
		shown = append(shown, ch)
	}
	if len(shown) == 0 && r.More == 0 && r.Note == "" {
		return nil
	}
	for _, ch := range shown {
		if ch.Hash != "" {
			f.remember(c.key.session, ch.Path, ch.Hash)
		}
	}
	diffs := f.appendDiffs(nil, shown)
	items := appendText(nil, f.note(p, shown, r))
	return append(append(items, ','), diffs...)
}

// appendDiffs appends a diff item, then a comma, per change of shown that
// has one, while they fit in Limits.MaxUpdateBytes; a diff past it is
// left out, its change saying why.
func (f *Filter) appendDiffs(dst []byte, shown []Change) []byte {
	budget := f.limits().MaxUpdateBytes
	if budget == 0 {
		budget = DefaultLimits.MaxUpdateBytes
	}
	for i := range shown {
		ch := &shown[i]
		if ch.New == nil {
			continue
		}
		n := len(dst)
		dst = append(acp.AppendDiff(dst, ch.Path, ch.Old, *ch.New), ',') // no oldText: created; empty newText: deleted
		if int64(len(dst)) > budget {
			dst = dst[:n]
			ch.Old, ch.New = nil, nil
			ch.Why = fmt.Sprintf("its diff is left out: one update carries at most %s of diffs", sizeWords(budget))
		}
	}
	return dst
}

// endWith is end, the agent's update that ended p's call, carrying r too:
// its content, or the call's last when it has none, then r's items. nil
// when r shows nothing.
func (f *Filter) endWith(p *pending, end []byte, r Report) []byte {
	items := f.shownItems(p, r)
	if items == nil {
		return nil
	}
	content := []byte{'['}
	if own, ok := rawjson.Get(end, "params", "update", "content"); ok && string(own) != "null" {
		content = appendItems(content, own)
	} else {
		content = appendItems(content, p.call.content.Bytes)
	}
	content = append(content, items...) // items end in a comma
	content[len(content)-1] = ']'
	line, err := rawjson.Set(end, content, "params", "update", "content")
	if err != nil {
		f.log().Warn("show-changes: the end of a call cannot carry its changes", "toolCallId", p.call.key.id, "err", err)
		return nil
	}
	return line
}

// followUp is the update that brings r to p's call after the call's end
// went without it: the call's kind, title and status, which a client that
// forgot the call draws it with, and its last content, which the update
// replaces, then r's items. A call whose content is too large to send
// again has them shown on a call of their own, named after it. nil when r
// shows nothing.
func (f *Filter) followUp(p *pending, r Report) []byte {
	c := p.call
	items := f.shownItems(p, r)
	if items == nil {
		return nil
	}
	raw := rawjson.AppendQuote([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`), c.key.session)
	content := []byte{'['}
	if c.bigContent {
		raw = appendOwnCall(raw, c)
	} else {
		raw = append(raw, `,"update":{"sessionUpdate":"tool_call_update","toolCallId":`...)
		raw = rawjson.AppendQuote(raw, c.key.id)
		raw = appendCallFields(raw, c, p.status)
		content = appendItems(content, c.content.Bytes)
	}
	content = append(content, items...)
	content[len(content)-1] = ']'
	raw = append(raw, `,"content":`...)
	raw = append(raw, content...)
	return append(raw, "}}}"...)
}

// appendCallFields appends c's title, kind and status (an ACP status; a
// call the end of its turn ended keeps the client's).
func appendCallFields(raw []byte, c *call, status string) []byte {
	if c.title != "" {
		raw = rawjson.AppendQuote(append(raw, `,"title":`...), c.title)
	}
	if c.kind != "" {
		raw = rawjson.AppendQuote(append(raw, `,"kind":`...), c.kind)
	}
	if status == "completed" || status == "failed" {
		raw = rawjson.AppendQuote(append(raw, `,"status":`...), status)
	}
	return raw
}

// appendOwnCall appends the start of the tool_call that shows the changes
// of c, whose content is too large to send again: a call of its own,
// completed, its id and title naming c.
func appendOwnCall(raw []byte, c *call) []byte {
	title := c.title
	if title == "" {
		title = c.key.id
	}
	raw = append(raw, `,"update":{"sessionUpdate":"tool_call","toolCallId":`...)
	raw = rawjson.AppendQuote(raw, c.key.id+"-acp-proxy-changes")
	raw = append(raw, `,"title":`...)
	raw = rawjson.AppendQuote(raw, "Files changed by "+title)
	return append(raw, `,"kind":"edit","status":"completed"`...)
}

// note is the text that says what changed while p's call ran.
func (f *Filter) note(p *pending, shown []Change, r Report) string {
	c := p.call
	if r.Aside {
		return "acp-proxy: " + r.Note
	}
	var b strings.Builder
	n := len(shown) + r.More
	b.WriteString("acp-proxy: ")
	if p.status == "cancelled" {
		b.WriteString("this command was cancelled, or never said it ended; ")
	}
	since := c.since
	if r.Since != "" {
		since = r.Since
	}
	fmt.Fprintf(&b, "%d %s under %s changed %s", n, plural(n, "file", "files"), c.cwd, since)
	if len(c.others) > 0 {
		b.WriteString("; other calls ran at the same time, so a change may be theirs: ")
		b.WriteString(names(c.others, c.moreOthers))
	}
	if r.Later != "" {
		b.WriteString("; calls that started before the proxy looked, so a change may be theirs: " + r.Later)
	}
	b.WriteString(":")
	for _, ch := range shown {
		b.WriteString("\n- " + ch.Op + " " + relTo(c.cwd, ch.Path))
		switch {
		case ch.MovedTo != "":
			b.WriteString(" (moved to " + relTo(c.cwd, ch.MovedTo) + ")")
		case ch.MovedFrom != "":
			b.WriteString(" (moved from " + relTo(c.cwd, ch.MovedFrom) + ")")
		}
		if ch.Mode != "" {
			b.WriteString(" (mode " + ch.Mode + ")")
		}
		switch ch.When {
		case whenBefore:
			b.WriteString(" (changed before this command started, by you or another program)")
		case whenAfter:
			b.WriteString(" (changed after this command ended: by you, another program, or one it left running)")
		}
		if ch.Why != "" {
			b.WriteString(": no diff, " + ch.Why)
		}
	}
	if r.More > 0 {
		fmt.Fprintf(&b, "\n- and %d more %s, not listed (one update shows at most %d)", r.More, plural(r.More, "file", "files"), f.limits().MaxShown)
	}
	if r.Note != "" {
		b.WriteString("\n" + r.Note)
	}
	return b.String()
}

// names are the calls cs (and more others), by title when they have one.
func names(cs []*call, more int) string {
	var out []string
	for _, o := range cs {
		name := o.key.id
		if o.title != "" {
			name = fmt.Sprintf("%q (%s)", o.title, o.key.id)
		}
		out = append(out, name)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// relTo is path relative to dir, for reading.
func relTo(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// appendText appends a text content item.
func appendText(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"content","content":{"type":"text","text":`...)
	return append(rawjson.AppendQuote(dst, text), "}}"...)
}

// appendItems appends the items of the content array content, each followed
// by a comma, element by element: whatever space the agent put in it, the
// items after them make a valid array.
func appendItems(dst, content []byte) []byte {
	_ = rawjson.Elements(content, func(_ int, item []byte) bool {
		dst = append(append(dst, item...), ',')
		return true
	})
	return dst
}

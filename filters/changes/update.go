package changes

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// updateFor is the tool_call_update that shows r on p's call: the content
// the client holds for the call, then a note saying what changed (and, for
// a file without a diff, why), then a diff per file. nil when there is
// nothing to show: no change, or only changes a diff already showed.
//
// A call whose content is too large to send again (an update's content
// replaces the call's) has its changes shown on a call of their own, named
// after it, rather than not at all.
func (f *Filter) updateFor(p *pending, r Report) []byte {
	c := p.call
	from := c.from
	if r.Earlier && !c.earlier { // a replay: the live proxy took the rest before
		from = c.prevFrom
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
	items := []byte{'['}
	if !c.bigContent {
		items = appendItems(items, c.content)
	}
	items = appendText(items, f.note(p, shown, r))
	for _, ch := range shown {
		if ch.New != nil {
			items = append(items, ',')
			items = acp.AppendDiff(items, ch.Path, ch.Old, *ch.New) // no oldText: created; empty newText: deleted
		}
	}
	items = append(items, ']')
	raw := rawjson.AppendQuote([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`), c.key.session)
	if c.bigContent {
		raw = appendOwnCall(raw, c)
	} else {
		raw = append(raw, `,"update":{"sessionUpdate":"tool_call_update","toolCallId":`...)
		raw = rawjson.AppendQuote(raw, c.key.id)
	}
	raw = append(raw, `,"content":`...)
	raw = append(raw, items...)
	return append(raw, "}}}"...)
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

package trace

import (
	"bufio"
	"encoding/json"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Redact writes the trace tr reads to w with its content replaced, so that
// it can be shared (replay --redact): record for record, with every time,
// direction, method, id, kind, status and number as it was, and the size
// and line breaks of every text, but none of its characters. A text is
// every JSON string but those that name the protocol's own things
// (keptKeys: methods, ids, kinds, statuses, stop reasons, the names and
// versions the agent and client gave themselves), so prompts, messages,
// thoughts, commands, titles, file contents, paths and command output are
// all replaced. Each character but whitespace becomes x (as many as its
// UTF-8 bytes), so a text that extends another still does (an agent's
// snapshots of a command's output stay prefixes of each other) and the
// redacted trace replays through the output filters as the original does.
func Redact(tr *Reader, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for rec, err := range tr.All() {
		if err != nil {
			return err
		}
		if _, err := bw.Write(appendRedacted(nil, rec)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// keptKeys are the members whose string values Redact keeps: the
// protocol's names and ids, which a replay and the view read, and which
// hold nothing a person wrote.
var keptKeys = map[string]bool{
	"jsonrpc": true, "method": true, "id": true, "sessionId": true, "toolCallId": true,
	"terminalId": true, "terminal_id": true, "sessionUpdate": true, "kind": true,
	"status": true, "type": true, "stopReason": true, "optionId": true, "outcome": true,
	"modelId": true, "currentModelId": true, "modeId": true, "currentModeId": true,
	"messageId": true, "configId": true, "methodId": true, "mimeType": true, "role": true,
}

// peerInfo are the objects in which a peer names itself; their name, title
// and version are kept.
var peerInfo = map[string]bool{"agentInfo": true, "clientInfo": true}

// appendRedacted appends rec, redacted, as one line of a trace.
func appendRedacted(dst []byte, rec Record) []byte {
	if rec.Conn != nil {
		dst = append(dst, `{"t":`...)
		dst = strconv.AppendFloat(dst, rec.T.Seconds(), 'f', 6, 64)
		dst = append(dst, `,"connection":`...)
		return append(append(dst, redactConnection(rec.Conn)...), '}', '\n')
	}
	dst = strconv.AppendFloat(append(dst, `{"t":`...), rec.T.Seconds(), 'f', 6, 64)
	dst = append(append(append(dst, `,"dir":"`...), rec.Dir.String()...), '"')
	if rec.Read != nil {
		return append(appendRead(append(dst, ','), redactRead(*rec.Read)), '}', '\n')
	}
	if rec.Note != nil {
		return append(appendNote(append(dst, ','), redactNote(*rec.Note)), '}', '\n')
	}
	if rec.HasLine {
		dst = AppendLine(append(dst, ','), redactLine(rec.Line))
	}
	if !rec.EOL { // kept as read, line or not: a redacted record has its record's shape
		dst = append(dst, `,"eol":false`...)
	}
	if rec.Held {
		dst = append(dst, `,"held":true`...)
	}
	if rec.Released {
		dst = appendSeconds(append(dst, `,"heldSince":`...), rec.HeldSince)
	}
	if rec.HasOut {
		dst = append(dst, `,"out":[`...)
		for i, o := range rec.Out {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendOutLine(dst, redactLine(o))
		}
		dst = append(dst, ']')
	}
	if rec.Src >= 0 {
		dst = appendSource(dst, rec.Src, rec.Timer)
	} else if rec.Timer { // kept as read: a redacted record has its record's shape
		dst = append(dst, `,"timer":true`...)
	}
	return append(dst, '}', '\n')
}

// redactLine redacts a line: a JSON value member by member, anything else
// character by character.
func redactLine(line []byte) []byte {
	trimmed := rawjson.TrimSpace(line)
	if len(trimmed) > 0 && rawjson.Valid(trimmed) {
		return redactJSON(nil, trimmed, "", "")
	}
	return []byte(redactText(string(line)))
}

// redactJSON appends the JSON value v, the value of member key of the
// object that is the value of member parent, redacted.
func redactJSON(dst, v []byte, key, parent string) []byte {
	switch v[0] {
	case '{':
		dst = append(dst, '{')
		n := 0
		_ = rawjson.Members(v, func(k, val []byte) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			name, _ := rawjson.Unquote(append(append([]byte{'"'}, k...), '"'))
			dst = append(rawjson.AppendQuote(dst, redactKey(name)), ':')
			dst = redactJSON(dst, val, name, key)
			return true
		})
		return append(dst, '}')
	case '[':
		dst = append(dst, '[')
		_ = rawjson.Elements(v, func(i int, el []byte) bool {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = redactJSON(dst, el, key, parent)
			return true
		})
		return append(dst, ']')
	case '"':
		if keptKeys[key] || peerInfo[parent] && (key == "name" || key == "title" || key == "version") {
			return append(dst, v...)
		}
		s, _ := rawjson.Unquote(v)
		return rawjson.AppendQuote(dst, redactText(s))
	}
	return append(dst, v...) // a number, true, false, null
}

// redactKey is a member's name, redacted when it looks like a path (some
// agents key what they report by file).
func redactKey(k string) string {
	if strings.HasPrefix(k, "/") || strings.HasPrefix(k, "~") || strings.HasPrefix(k, ".") || strings.ContainsAny(k, `\ `) {
		return redactText(k)
	}
	return k
}

// redactText replaces each character of s but whitespace by x, as many as
// its UTF-8 bytes (one for a byte that is not UTF-8).
func redactText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			b.WriteString(s[i : i+size])
		} else {
			b.WriteString(strings.Repeat("x", size))
		}
		i += size
	}
	return b.String()
}

// redactRead redacts a "read" record: its kind and the numbers in its
// arguments and answer stay, its path, texts and error do not.
func redactRead(a DiskAnswer) DiskAnswer {
	a.Path = redactText(a.Path)
	if a.Args != nil {
		a.Args = redactJSON(nil, rawjson.TrimSpace(a.Args), "", "")
	}
	if a.Answer != nil {
		a.Answer = redactJSON(nil, rawjson.TrimSpace(a.Answer), "", "")
	}
	a.Err = redactText(a.Err)
	return a
}

// redactConnection redacts a "connection" record: its start and the
// proxy's version stay, and of the command lines, the agent's program
// (without its directory), the flags and values that are numbers,
// durations or sizes; other arguments (paths, prompts) are replaced.
func redactConnection(conn []byte) []byte {
	ci, ok := ParseConnection(conn)
	if !ok {
		return redactJSON(nil, conn, "", "")
	}
	for i, a := range ci.Agent {
		if i == 0 {
			ci.Agent[i] = path.Base(strings.ReplaceAll(a, `\`, "/"))
		} else {
			ci.Agent[i] = redactArg(a)
		}
	}
	for i, a := range ci.Args {
		ci.Args[i] = redactArg(a)
	}
	b, _ := json.Marshal(ci)
	return b
}

// plainArg is a flag without a value, or a value that is a number, a
// duration or a size.
var plainArg = regexp.MustCompile(`^(--?[A-Za-z][A-Za-z0-9-]*|[0-9][0-9.]*[A-Za-z]{0,3})$`)

func redactArg(a string) string {
	if plainArg.MatchString(a) {
		return a
	}
	if flag, value, ok := strings.Cut(a, "="); ok && plainArg.MatchString(flag) && strings.HasPrefix(flag, "-") {
		return flag + "=" + redactArg(value)
	}
	return redactText(a)
}

// appendSource appends a delivered line's "src" (and "timer").
func appendSource(dst []byte, src int, timer bool) []byte {
	dst = append(dst, `,"src":`...)
	dst = strconv.AppendInt(dst, int64(src), 10)
	if timer {
		dst = append(dst, `,"timer":true`...)
	}
	return dst
}

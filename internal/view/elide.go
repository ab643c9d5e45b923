package view

import (
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// elideStringBytes is the longest string a raw message keeps as it is.
const elideStringBytes = 2 << 10

// elideJSON copies the JSON value v, compacted, with every string longer
// than elideStringBytes replaced by its first and last lines and a note
// of what is missing. Keys keep their order. An invalid value comes back
// as nil.
func elideJSON(v []byte) []byte {
	out, ok := appendElided(nil, v)
	if !ok {
		return nil
	}
	return out
}

func appendElided(dst, v []byte) ([]byte, bool) {
	i := 0
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	if i == len(v) {
		return dst, false
	}
	ok := true
	switch v[i] {
	case '{':
		dst = append(dst, '{')
		n := 0
		err := rawjson.Members(v, func(key, val []byte) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(dst, '"')
			dst = append(dst, key...)
			dst = append(dst, '"', ':')
			dst, ok = appendElided(dst, val)
			return ok
		})
		return append(dst, '}'), ok && err == nil
	case '[':
		dst = append(dst, '[')
		err := rawjson.Elements(v, func(n int, el []byte) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst, ok = appendElided(dst, el)
			return ok
		})
		return append(dst, ']'), ok && err == nil
	case '"':
		if len(v) <= elideStringBytes {
			return append(dst, v...), true
		}
		s, err := rawjson.Unquote(v)
		if err != nil {
			return dst, false
		}
		t := makeText([]byte(s))
		if t.Tail == "" && t.OmittedBytes == 0 {
			return rawjson.AppendQuote(dst, s), true
		}
		return rawjson.AppendQuote(dst, t.Text+marker(t)+t.Tail), true
	}
	j := len(v)
	for j > i && (v[j-1] == ' ' || v[j-1] == '\t' || v[j-1] == '\n' || v[j-1] == '\r') {
		j--
	}
	return append(dst, v[i:j]...), true
}

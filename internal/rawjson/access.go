package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// KeyIs reports whether the raw key bytes (between the quotes) name key.
// Escaped keys ("\u006dethod") are decoded first; they are rare but legal.
func KeyIs(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
		return false
	}
	return s == key
}

// Members calls fn for each member of the JSON object obj, in order, with the
// raw key (between the quotes) and the value's bytes. It stops when fn returns
// false. obj must be an object; it is validated up to where the walk stops,
// and a walk that is not stopped also rejects bytes after the object.
func Members(obj []byte, fn func(key, val []byte) bool) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return syntaxErr(i, "not an object")
	}
	stopped := false
	end, err := members(obj, i, 1, nil, nil, func(_ int, key []byte, vs, ve int) bool {
		stopped = !fn(key, obj[vs:ve])
		return !stopped
	})
	if err == nil && !stopped && skipSpace(obj, end) != len(obj) {
		return syntaxErr(end, "bytes after the object")
	}
	return err
}

// Elements calls fn for each element of the JSON array arr, in order.
func Elements(arr []byte, fn func(n int, el []byte) bool) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return syntaxErr(i, "not an array")
	}
	_, err := elements(arr, i, 1, nil, func(n, vs, ve int) bool {
		return fn(n, arr[vs:ve])
	})
	return err
}

// span is where a member sits in a document: key start, value start, value end.
type span struct{ ks, vs, ve int }

// find returns the span of the last member named key in the object that
// starts at doc[i]. JavaScript and Go decoders keep the last duplicate, so
// that is the one a peer acts on.
func find(doc []byte, i int, key string) (span, bool, error) {
	i = skipSpace(doc, i)
	if i >= len(doc) || doc[i] != '{' {
		return span{}, false, syntaxErr(i, "not an object")
	}
	var s span
	found := false
	_, err := members(doc, i, 1, nil, nil, func(ks int, k []byte, vs, ve int) bool {
		if KeyIs(k, key) {
			s, found = span{ks, vs, ve}, true
		}
		return true
	})
	if err != nil {
		return span{}, false, err
	}
	return s, found, nil
}

// Get returns the raw value at path in doc (an object at every level), and
// whether it exists. Invalid JSON on the way reads as absent.
func Get(doc []byte, path ...string) ([]byte, bool) {
	start, end := 0, len(doc)
	for _, key := range path {
		s, ok, err := find(doc[:end], start, key)
		if err != nil || !ok {
			return nil, false
		}
		start, end = s.vs, s.ve
	}
	return doc[skipSpace(doc, start):end], true
}

// GetString returns the string at path, decoded.
func GetString(doc []byte, path ...string) (string, bool) {
	raw, ok := Get(doc, path...)
	if !ok {
		return "", false
	}
	s, err := Unquote(raw)
	return s, err == nil
}

// Set returns a copy of doc in which the value at path is val, every other
// byte unchanged. A missing member is appended to its object, creating the
// missing objects on the way; a value on the way that is not an object is an
// error (the caller leaves the message alone). val must be valid JSON.
func Set(doc, val []byte, path ...string) ([]byte, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("rawjson: Set needs a path")
	}
	start := 0
	for n, key := range path {
		s, ok, err := find(doc, start, key)
		if err != nil {
			return nil, fmt.Errorf("rawjson: set %q: %w", path[:n+1], err)
		}
		if ok && n == len(path)-1 {
			return splice(doc, s.vs, s.ve, val), nil
		}
		if ok {
			start = s.vs
			continue
		}
		// Build {"k2":{"k3":val}} for the rest of the path and append it
		// as member key to the object at start.
		ins := appendMember(nil, key, nestUnder(path[n+1:], val))
		return insertMember(doc, start, ins)
	}
	panic("unreachable")
}

// nestUnder wraps val in one object per key: ["a","b"], v → {"a":{"b":v}}.
func nestUnder(keys []string, val []byte) []byte {
	if len(keys) == 0 {
		return val
	}
	out := []byte{'{'}
	out = appendMember(out, keys[0], nestUnder(keys[1:], val))
	return append(out, '}')
}

func appendMember(dst []byte, key string, val []byte) []byte {
	dst = AppendQuote(dst, key)
	dst = append(dst, ':')
	return append(dst, val...)
}

// insertMember appends the member text ins to the object starting at doc[i].
func insertMember(doc []byte, i int, ins []byte) ([]byte, error) {
	i = skipSpace(doc, i)
	end, err := SkipValue(doc, i)
	if err != nil {
		return nil, err
	}
	if doc[i] != '{' {
		return nil, syntaxErr(i, "not an object")
	}
	closeAt := end - 1 // the '}'
	empty := skipSpace(doc, i+1) == closeAt
	var mid []byte
	if !empty {
		mid = append([]byte{','}, ins...)
	} else {
		mid = ins
	}
	return splice(doc, closeAt, closeAt, mid), nil
}

// Delete returns a copy of doc without the member at path, and whether it was
// there (every duplicate of it). Neighbouring commas are fixed up; every other byte is unchanged.
func Delete(doc []byte, path ...string) ([]byte, bool, error) {
	if len(path) == 0 {
		return nil, false, fmt.Errorf("rawjson: Delete needs a path")
	}
	start := 0
	for _, key := range path[:len(path)-1] {
		s, ok, err := find(doc, start, key)
		if err != nil || !ok {
			return doc, false, err
		}
		start = s.vs
	}
	// Remove every duplicate too: a decoder keeps the last one, so leaving
	// an earlier one would resurrect a value the caller meant to remove.
	removed := false
	for {
		out, ok, err := deleteMember(doc, start, path[len(path)-1])
		if err != nil || !ok {
			return doc, removed, err
		}
		doc, removed = out, true
	}
}

func deleteMember(doc []byte, objStart int, key string) ([]byte, bool, error) {
	objStart = skipSpace(doc, objStart)
	if objStart >= len(doc) || doc[objStart] != '{' {
		return doc, false, syntaxErr(objStart, "not an object")
	}
	var spans []span
	target := -1
	_, err := members(doc, objStart, 1, nil, nil, func(ks int, k []byte, vs, ve int) bool {
		if KeyIs(k, key) {
			target = len(spans)
		}
		spans = append(spans, span{ks, vs, ve})
		return true
	})
	if err != nil || target < 0 {
		return doc, false, err
	}
	s := spans[target]
	switch {
	case target+1 < len(spans): // cut through the comma up to the next key
		return splice(doc, s.ks, spans[target+1].ks, nil), true, nil
	case target > 0: // last of several: cut from the previous value's end
		return splice(doc, spans[target-1].ve, s.ve, nil), true, nil
	default:
		return splice(doc, s.ks, s.ve, nil), true, nil
	}
}

// splice returns a new slice: doc[:from] + mid + doc[to:].
func splice(doc []byte, from, to int, mid []byte) []byte {
	out := make([]byte, 0, len(doc)-(to-from)+len(mid))
	out = append(out, doc[:from]...)
	out = append(out, mid...)
	return append(out, doc[to:]...)
}

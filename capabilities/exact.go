package capabilities

import (
	"strconv"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// The peers read keys exactly: JavaScript's JSON.parse and serde match a key by its bytes, where
// encoding/json's struct decoding also takes "CWD" for "cwd". Reading a message through Go structs
// could give the proxy a value the agent never used ({"cwd":"/p","CWD":"/"}), so what the filters
// rely on is read here key by key, exactly. A key that appears twice is read differently by
// different parsers (JSON.parse keeps the last, serde refuses the message): it counts as absent.

// member is the value of obj's one member named key.
func member(obj []byte, key string) ([]byte, bool) {
	var val []byte
	n := 0
	err := rawjson.Members(obj, func(k, v []byte) bool {
		if rawjson.KeyIs(k, key) {
			n++
			val = v
		}
		return n < 2
	})
	if err != nil || n != 1 {
		return nil, false
	}
	return val, true
}

// at is the value at the path of keys below obj.
func at(obj []byte, keys ...string) ([]byte, bool) {
	v := obj
	for _, k := range keys {
		var ok bool
		if v, ok = member(v, k); !ok {
			return nil, false
		}
	}
	return v, true
}

// stringAt is the string at keys, "" when absent or not a string.
func stringAt(obj []byte, keys ...string) string {
	v, ok := at(obj, keys...)
	if !ok || len(v) == 0 || v[0] != '"' {
		return ""
	}
	s, err := rawjson.Unquote(v)
	if err != nil {
		return ""
	}
	return s
}

// trueAt reports whether the value at keys is true.
func trueAt(obj []byte, keys ...string) bool {
	v, ok := at(obj, keys...)
	return ok && string(v) == "true"
}

// intAt is the integer at keys: 0 when absent; ok is false when present and not an integer.
func intAt(obj []byte, keys ...string) (n int, ok bool) {
	v, present := at(obj, keys...)
	if !present {
		return 0, true
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

// objectAt is the object at keys, nil when absent or not an object.
func objectAt(obj []byte, keys ...string) []byte {
	v, ok := at(obj, keys...)
	if !ok || len(v) == 0 || v[0] != '{' {
		return nil
	}
	return v
}

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool {
	raw = rawjson.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && rawjson.Valid(raw)
}

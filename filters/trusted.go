package filters

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/rawjson"
)

// Walking JSON the Message has already validated. rawjson validates every
// byte it walks, which is right for a first look but makes each further
// look at a large value cost as much again: reading a 400 KB snapshot's
// update, its content array, the item and the text would be five more
// validating walks over the same string. These walks trust the bytes (a
// subslice of a message whose Valid() is true) and skip strings by
// searching for their closing quote, so a large string costs a memchr.
// They must never see bytes that were not validated.

// trustedSkip returns the index just past the value that starts at or
// after b[i].
func trustedSkip(b []byte, i int) int {
	i = trustedSpace(b, i)
	switch b[i] {
	case '"':
		return trustedString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = trustedString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	default: // a number or a literal
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
}

// trustedString returns the index past the string whose quote is b[i].
func trustedString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		if backslashesBefore(b, j)%2 == 0 {
			return j + 1
		}
		j++
	}
}

func trustedSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// trustedMembers calls fn with the raw key (between the quotes) and value
// of each member of the object obj, until fn returns false. It does
// nothing when obj is not an object.
func trustedMembers(obj []byte, fn func(key, val []byte) bool) {
	i := trustedSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = trustedSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return // '}'
		}
		ke := trustedString(obj, i)
		key := obj[i+1 : ke-1]
		vs := trustedSpace(obj, trustedSpace(obj, ke)+1) // past ':'
		ve := trustedSkip(obj, vs)
		if !fn(key, obj[vs:ve]) {
			return
		}
		i = trustedSpace(obj, ve)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// trustedElements calls fn with each element of the array arr, until fn
// returns false. It does nothing when arr is not an array.
func trustedElements(arr []byte, fn func(el []byte) bool) {
	i := trustedSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = trustedSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return
	}
	for i < len(arr) {
		vs := trustedSpace(arr, i)
		ve := trustedSkip(arr, vs)
		if !fn(arr[vs:ve]) {
			return
		}
		i = trustedSpace(arr, ve)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i++
	}
}

// trustedGet returns the value of the last member key of obj.
func trustedGet(obj []byte, key string) (val []byte, ok bool) {
	trustedMembers(obj, func(k, v []byte) bool {
		if rawjson.KeyIs(k, key) {
			val, ok = v, true
		}
		return true
	})
	return val, ok
}

// member2 returns the raw values of two members of obj (validated JSON),
// in one walk.
func member2(obj []byte, k1, k2 string) (v1, v2 []byte) {
	trustedMembers(obj, func(key, val []byte) bool {
		switch {
		case rawjson.KeyIs(key, k1):
			v1 = val
		case rawjson.KeyIs(key, k2):
			v2 = val
		}
		return true
	})
	return v1, v2
}

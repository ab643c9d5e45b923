package rawjson

import "bytes"

// Walking JSON the Message has already validated. rawjson validates every
// byte it walks, which is right for a first look but makes each further
// look at a large value cost as much again: reading a 400 KB snapshot's
// update, its content array, the item and the text would be five more
// validating walks over the same string. These walks trust the bytes (a
// subslice of a message whose Valid() is true) and skip strings by
// searching for their closing quote, so a large string costs a memchr.
// They must never see bytes whose structure was not validated (by
// SkipValue, or SkipStructure, which finds where each string ends as they
// do).

// TrustedSkip returns the index just past the value that starts at or
// after b[i].
func TrustedSkip(b []byte, i int) int {
	i = skipSpace(b, i)
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
	if e := StringEnd(b, i); e >= 0 {
		return e
	}
	return len(b)
}

// StringEnd returns the index past the string whose opening quote is b[i],
// or -1 when the string does not end in b. It finds the first quote no
// backslash escapes, and validates nothing: it serves the walks that read
// bytes not yet validated, and never panics on them.
func StringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		if j += k; BackslashesBefore(b, j)%2 == 0 {
			return j + 1
		}
	}
	return -1
}

// TrustedMembers calls fn with the raw key (between the quotes) and value
// of each member of the object obj, until fn returns false. It does
// nothing when obj is not an object.
func TrustedMembers(obj []byte, fn func(key, val []byte) bool) {
	TrustedWalk(obj, func(key []byte, vs int) (int, bool) {
		ve := TrustedSkip(obj, vs)
		return ve, fn(key, obj[vs:ve])
	})
}

// TrustedWalk calls enter with the raw key of each member of the object
// that starts at obj[0] (after whitespace) and the index in obj where the
// member's value starts; enter returns the index just past the value and
// whether to go on. TrustedWalk returns the index past the object, or past
// the value where enter stopped, or -1 when obj is not an object.
//
// enter may walk into the value itself (TrustedWalk(obj[vs:], …) + vs is
// the end of an object value): reading a member deep inside a large update
// so skips each large string once, where a walk per level would skip it
// once per level.
func TrustedWalk(obj []byte, enter func(key []byte, vs int) (ve int, more bool)) int {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return -1
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return min(i+1, len(obj)) // past '}'
		}
		ke := trustedString(obj, i)
		key := obj[i+1 : ke-1]
		vs := skipSpace(obj, skipSpace(obj, ke)+1) // past ':'
		ve, more := enter(key, vs)
		if !more {
			return ve
		}
		i = skipSpace(obj, ve)
		if i >= len(obj) || obj[i] != ',' {
			return min(i+1, len(obj)) // past '}'
		}
		i++
	}
}

// TrustedElements calls fn with each element of the array arr, until fn
// returns false. It does nothing when arr is not an array.
func TrustedElements(arr []byte, fn func(el []byte) bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return
	}
	for i < len(arr) {
		vs := skipSpace(arr, i)
		ve := TrustedSkip(arr, vs)
		if !fn(arr[vs:ve]) {
			return
		}
		i = skipSpace(arr, ve)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i++
	}
}

// TrustedGet returns the value of the last member key of obj.
func TrustedGet(obj []byte, key string) (val []byte, ok bool) {
	TrustedMembers(obj, func(k, v []byte) bool {
		if KeyIs(k, key) {
			val, ok = v, true
		}
		return true
	})
	return val, ok
}

// TrustedGetPair returns the raw values of two members of obj (validated JSON),
// in one walk.
func TrustedGetPair(obj []byte, k1, k2 string) (v1, v2 []byte) {
	TrustedMembers(obj, func(key, val []byte) bool {
		switch {
		case KeyIs(key, k1):
			v1 = val
		case KeyIs(key, k2):
			v2 = val
		}
		return true
	})
	return v1, v2
}

// BackslashesBefore counts the backslashes right before s[i]: an odd count
// escapes s[i] inside a JSON string.
func BackslashesBefore(s []byte, i int) int {
	n := 0
	for i-n > 0 && s[i-n-1] == '\\' {
		n++
	}
	return n
}

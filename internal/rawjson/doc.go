// Package rawjson reads and edits JSON documents as bytes.
//
// acp-proxy must forward every byte of a peer message that no filter changes,
// and a filter may change only the subtree it owns. Decoding a message into Go
// values and encoding it again would drop unknown fields, reorder keys, turn
// big integers into floats and lose the difference between null, [] and an
// absent key. So this package never re-encodes: it finds the span of a value
// inside the original bytes and builds a new document by splicing spans.
//
// The scanner validates as it skips (structure, strings, escapes, numbers and
// literals), so a document whose top level it walks to the end is valid JSON.
// It does not validate UTF-8, as encoding/json does not either. SkipStructure
// is the one exception: for a first look at a large message it leaves the
// contents of long strings to whoever reads them.
package rawjson

package view

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

// The page: markup with four slots, its style and its script. They are
// inlined, so the page is one file that needs no network.
var (
	//go:embed page.html
	pageHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

// DataElementID is the id of the <script type="application/json"> element
// that holds the Data.
const DataElementID = "acp-proxy-view-data"

// The page's Content-Security-Policy: it loads nothing, and runs only its
// own script, named by its hash (a page that is a file cannot carry a
// nonce); a script anything else put on the page does not run. A live
// page may also read its updates from the server that served it.
var (
	staticCSP = "default-src 'none'; style-src 'unsafe-inline'; script-src " + ScriptHash(pageJS) + "; img-src data:"
	LiveCSP   = staticCSP + "; connect-src 'self'"
)

// ScriptHash is the Content-Security-Policy source that allows the inline
// script whose text is js: 'sha256-…'.
func ScriptHash(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// WriteHTML writes the page for d.
func WriteHTML(w io.Writer, d *Data) error {
	data, err := EncodeData(d)
	if err != nil {
		return err
	}
	return writePage(w, d.Trace, data, staticCSP)
}

// WriteLiveHTML writes the page of a live session, titled title, with
// data as EncodeData made it (its Live set): the same page, allowed to
// read its updates from the server it came from.
func WriteLiveHTML(w io.Writer, title string, data []byte) error {
	return writePage(w, title, data, LiveCSP)
}

func writePage(w io.Writer, title string, data []byte, csp string) error { // Cut first: the slots are filled in one pass that never rescans
	// what it inserted (a trace named "{{DATA}}" stays a name).
	before, after, ok := strings.Cut(pageHTML, "{{DATA}}")
	if !ok {
		return fmt.Errorf("view: the page template has no data slot")
	}
	slots := strings.NewReplacer(
		"{{TITLE}}", html.EscapeString(title),
		"{{CSP}}", csp,
		"{{CSS}}", pageCSS,
		"{{DATA_ID}}", DataElementID,
		"{{JS}}", pageJS,
	)
	for _, part := range [][]byte{[]byte(slots.Replace(before)), data, []byte(slots.Replace(after))} {
		if _, err := w.Write(part); err != nil {
			return fmt.Errorf("view: writing the page: %w", err)
		}
	}
	return nil
}

// EncodeData is d as the page embeds it: JSON in which '<', '>', '&',
// U+2028 and U+2029 only ever appear escaped, so no trace content can end
// the <script> element that holds it (a "</script>" in a message) or be
// read as markup.
func EncodeData(d *Data) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("view: encoding the page data: %w", err)
	}
	// encoding/json already escapes all five; this makes it a property of
	// this function rather than of the encoder's options. In JSON they can
	// only stand inside strings, where the escape means the same.
	return scriptSafe.ReplaceAll(bytes.TrimRight(b.Bytes(), "\n")), nil
}

type replacer struct{ r *strings.Replacer }

func (r replacer) ReplaceAll(b []byte) []byte { return []byte(r.r.Replace(string(b))) }

var scriptSafe = replacer{strings.NewReplacer(
	"<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "\u2028", `\u2028`, "\u2029", `\u2029`,
)}

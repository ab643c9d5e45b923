package acp

import "github.com/acp-proxy/acp-proxy/internal/rawjson"

// AppendDiff appends an ACP v1 `diff` content item for path to dst: its
// oldText the JSON null when oldText is nil (a file created), and newText
// (empty for a file deleted). Both shell-to-patch and show-changes show
// files so, and every client renders the one shape.
func AppendDiff(dst []byte, path string, oldText *string, newText string) []byte {
	dst = append(dst, `{"type":"diff","path":`...)
	dst = rawjson.AppendQuote(dst, path)
	dst = append(dst, `,"oldText":`...)
	if oldText != nil {
		dst = rawjson.AppendQuote(dst, *oldText)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"newText":`...)
	return append(rawjson.AppendQuote(dst, newText), '}')
}

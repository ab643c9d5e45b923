package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/view"
)

// viewGoldenDir holds, per committed trace, the data its page embeds when
// made with every filter (indented JSON): the model the page renders, not
// its markup, so a change to the page's look changes no golden.
//
//	go test ./cmd/acp-proxy -run TestViewGoldens            # check
//	go test ./cmd/acp-proxy -run TestViewGoldens -update    # rewrite; then review `git diff testdata/view/golden`
const viewGoldenDir = "../../testdata/view/golden"

// viewFlags are the filter flags a trace's page is made with: all of them,
// so the page shows each filter's before and after.
func viewFlags(trace []byte) []string {
	flags := []string{"--shell-to-patch", "--terminal-output", "--deltas"}
	if bytes.Contains(trace, []byte("<persisted-output>")) {
		flags = append(flags, "--expand-persisted-output")
	}
	return flags
}

func TestViewGoldens(t *testing.T) {
	names := committedTraces(t)
	require.NotEmpty(t, names)
	want := map[string]bool{}
	for _, name := range names {
		want[name+".json"] = true
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(tracesDir, name+".jsonl")
			trace, err := os.ReadFile(path)
			require.NoError(t, err)
			page := viewOK(t, append(viewFlags(trace), path)...)
			golden := filepath.Join(viewGoldenDir, name+".json")
			if !*update {
				require.FileExists(t, golden, "no golden: run go test ./cmd/acp-proxy -run TestViewGoldens -update, and review it")
			}
			checkGolden(t, golden, pageData(t, page))
		})
	}
	checkNoStaleGoldens(t, viewGoldenDir, want)
}

// viewOK runs `acp-proxy view -o - args...` and returns the page; it fails
// on a non-zero exit or anything on stderr (a filter failure).
func viewOK(t *testing.T, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"view", "-o", "-"}, args...), strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, "acp-proxy view %q: %s", args, stderr.String())
	require.Empty(t, stderr.String(), "acp-proxy view %q", args)
	return stdout.Bytes()
}

// pageData is the data block of a page, indented for review.
func pageData(t *testing.T, page []byte) []byte {
	t.Helper()
	open := []byte(`<script type="application/json" id="` + view.DataElementID + `">`)
	i := bytes.Index(page, open)
	require.GreaterOrEqual(t, i, 0, "the page has no data block")
	block := page[i+len(open):]
	block = block[:bytes.Index(block, []byte("</script>"))]
	var out bytes.Buffer
	require.NoError(t, json.Indent(&out, block, "", " "))
	out.WriteByte('\n')
	// A timeline series on one line, not one number per line.
	b := numberArray.ReplaceAllFunc(out.Bytes(), func(arr []byte) []byte {
		return bytes.Join(bytes.Fields(arr), nil)
	})
	require.True(t, json.Valid(b))
	return b
}

var numberArray = regexp.MustCompile(`\[[-0-9.eE,\s]*\]`)

package acp

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzMessageView checks the lazy view against encoding/json on any line:
// the same validity (Checked; Valid may leave long strings unchecked), method, session and update, and never a panic.
func FuzzMessageView(f *testing.F) {
	if corpus, err := os.ReadFile("../testdata/transparency/corpus.jsonl"); err == nil {
		for _, line := range bytes.Split(corpus, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := NewMessage(ClientToAgent, raw, time.Time{})
		var obj map[string]json.RawMessage
		valid := json.Unmarshal(raw, &obj) == nil && obj != nil
		require.Equal(t, valid, m.Checked(), "Checked(%q), against encoding/json", raw)
		if valid {
			require.True(t, m.Valid(), "Valid(%q) = false for a valid object", raw)
		}
		if !valid {
			return
		}
		// Keys match exactly, as JavaScript peers read them (a Go struct
		// would also take "metHod"); a method that is not a string is
		// not one.
		var method string
		if json.Unmarshal(obj["method"], &method) == nil {
			require.Equal(t, method, m.Method(), "Method(%q)", raw)
		}
		_ = m.UpdateKind()
		// params.sessionId and params.update as a JavaScript peer reads
		// them: the last params, its last members.
		var params map[string]json.RawMessage
		var session string
		if json.Unmarshal(obj["params"], &params) == nil {
			_ = json.Unmarshal(params["sessionId"], &session)
		}
		require.Equal(t, session, m.SessionID(), "SessionID(%q)", raw)
		update := params["update"]
		require.Equal(t, string(update), string(m.Update()), "Update(%q)", raw)
	})
}

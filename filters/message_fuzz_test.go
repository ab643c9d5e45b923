package filters

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"
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
		m := NewMessage(ClientToAgent, raw, time.Time{}, nil)
		var env struct {
			Method *string          `json:"method"`
			ID     *json.RawMessage `json:"id"`
		}
		var obj map[string]json.RawMessage
		valid := json.Unmarshal(raw, &obj) == nil && obj != nil
		if m.Checked() != valid {
			t.Fatalf("Checked(%q) = %v, encoding/json says %v", raw, m.Checked(), valid)
		}
		if valid && !m.Valid() {
			t.Fatalf("Valid(%q) = false for a valid object", raw)
		}
		if !valid {
			return
		}
		if json.Unmarshal(raw, &env) != nil {
			return // e.g. a method that is not a string
		}
		if env.Method != nil && *env.Method != m.Method() {
			t.Fatalf("Method(%q) = %q, want %q", raw, m.Method(), *env.Method)
		}
		_ = m.UpdateKind()
		// params.sessionId and params.update as a JavaScript peer reads
		// them: the last params, its last members.
		var params map[string]json.RawMessage
		var session string
		if json.Unmarshal(obj["params"], &params) == nil {
			_ = json.Unmarshal(params["sessionId"], &session)
		}
		if m.SessionID() != session {
			t.Fatalf("SessionID(%q) = %q, want %q", raw, m.SessionID(), session)
		}
		if update := params["update"]; !bytes.Equal(m.Update(), update) {
			t.Fatalf("Update(%q) = %q, want %q", raw, m.Update(), update)
		}
	})
}

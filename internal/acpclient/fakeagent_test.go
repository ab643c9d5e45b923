package acpclient_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeAgentEnv makes the test binary act as a fake agent; its value is the
// mode. A re-executed test binary is the smallest agent that is still a
// real process with real pipes.
const fakeAgentEnv = "ACPCLIENT_FAKE_AGENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeAgentEnv); mode != "" {
		if err := runFakeAgent(mode); err != nil {
			fmt.Fprintln(os.Stderr, "fake agent:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeAgentArgv launches this test binary as a fake agent in mode:
//   - "turn": a prompt turn with a tool call, a permission request, an
//     fs/read_text_file request and a bigLine-sized final update;
//   - "exit": writes to stderr and exits on session/prompt.
func fakeAgentArgv(t *testing.T, mode string) ([]string, []string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	return []string{exe, "-test.run=^$"}, append(os.Environ(), fakeAgentEnv+"="+mode)
}

// bigLine is the size of the fake agent's final update's output: past the
// client's 1 MiB read buffer.
const bigLine = 3 << 20

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func runFakeAgent(mode string) error {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out.Write(append(b, '\n'))
		return out.Flush()
	}
	recv := func() (fakeMsg, error) {
		var m fakeMsg
		line, err := in.ReadBytes('\n')
		if err != nil {
			return m, fmt.Errorf("read: %w", err)
		}
		return m, json.Unmarshal(line, &m)
	}
	update := func(u map[string]any) error {
		return send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "s1", "update": u}})
	}
	for {
		m, err := recv()
		if err != nil {
			return err
		}
		switch m.Method {
		case "initialize":
			// Echo the capabilities back so the test can check them.
			var p struct {
				ClientCapabilities json.RawMessage `json:"clientCapabilities"`
			}
			json.Unmarshal(m.Params, &p)
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"protocolVersion": 1, "agentCapabilities": map[string]any{}, "_meta": map[string]any{"echo": p.ClientCapabilities},
			}})
		case "session/new":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"sessionId": "s1"}})
		case "session/prompt":
			if mode == "exit" {
				fmt.Fprintln(os.Stderr, "fake agent: crashing on purpose")
				return nil
			}
			if err := fakeTurn(send, recv, update); err != nil {
				return err
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"stopReason": "end_turn"}})
		default:
			return fmt.Errorf("unexpected message %+v", m)
		}
	}
}

// fakeTurn plays one tool call; it fails unless the client allows with the
// first allow option and refuses fs/read_text_file with -32601.
func fakeTurn(send func(any) error, recv func() (fakeMsg, error), update func(map[string]any) error) error {
	update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "echo", "kind": "execute", "status": "pending"})
	send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": map[string]any{
		"sessionId": "s1", "toolCall": map[string]any{"toolCallId": "t1"},
		"options": []any{
			map[string]any{"optionId": "no", "name": "Reject", "kind": "reject_once"},
			map[string]any{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
			map[string]any{"optionId": "always", "name": "Always", "kind": "allow_always"},
		},
	}})
	m, err := recv()
	if err != nil {
		return err
	}
	if want := `{"outcome":{"optionId":"yes","outcome":"selected"}}`; string(m.Result) != want {
		return fmt.Errorf("permission answer %s, want %s", m.Result, want)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "fs/read_text_file", "params": map[string]any{"sessionId": "s1", "path": "/x"}})
	if m, err = recv(); err != nil {
		return err
	}
	if !strings.Contains(string(m.Error), "-32601") {
		return fmt.Errorf("fs answer %+v, want error -32601", m)
	}
	return update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
		"rawOutput": strings.Repeat("x", bigLine)})
}

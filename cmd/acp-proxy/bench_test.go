package main

import (
	"io"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/pipebench"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// BenchmarkTerminalOutputStream is the proxy's time on a stream of 10 KB
// _meta.terminal_output deltas of one command to a Zed-like client (one
// that advertised the extension), pipe to pipe as in proxy's
// BenchmarkThroughput: the bare 32 KiB copy loop, the proxy with no filter
// flag, with each filter flag alone, and with all of them, in the same run.
// One op is one update; run it with -benchtime 20000x for the stream of
// 20,000 updates.
func BenchmarkTerminalOutputStream(b *testing.B) {
	runs := []struct {
		name string
		cfg  *filterset.Config // nil: the bare copy loop
	}{
		{"bare-copy", nil},
		{"no-filter", &filterset.Config{}},
		{"terminal-output", &filterset.Config{TerminalOutput: true}},
		{"deltas", &filterset.Config{Deltas: true}},
		{"shell-to-patch", &filterset.Config{ShellToPatch: true}},
		{"expand-persisted-output", &filterset.Config{ExpandPersistedOutput: true}},
		{"show-changes", &filterset.Config{ShowChanges: true}},
		{"all", &filterset.Config{TerminalOutput: true, Deltas: true, ShellToPatch: true, ExpandPersistedOutput: true}},
	}
	head, line := terminalStream(10 << 10)
	for _, run := range runs {
		b.Run(run.name, func(b *testing.B) {
			relay := pipebench.CopyLoop
			if run.cfg != nil {
				r := &proxy.Relay{Chain: run.cfg.Chain(capabilities.New())}
				if r.Chain.Len() == 0 {
					r.Chain = nil
				}
				relay = func(dst io.Writer, src io.Reader) error {
					conn := r.Open(io.Discard, dst)
					init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true,"_meta":{"terminal_output":true,"terminal-auth":true}}}}` + "\n" +
						`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}` + "\n"
					if err := conn.Pump(acp.ClientToAgent, strings.NewReader(init)); err != nil {
						return err
					}
					return conn.Pump(acp.AgentToClient, src)
				}
			}
			pipebench.Run(b, head, line, relay)
		})
	}
}

// terminalStream is the start of a codex-acp 0.16 session with the
// extension (the initialize answer, the command's tool_call) and one
// update streaming size bytes of it: a message of about size bytes
// carrying lines of terminal output.
func terminalStream(size int) (head, update []byte) {
	head = []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"codex-acp","version":"0.16.0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"make","kind":"execute","status":"in_progress","content":[{"type":"terminal","terminalId":"call_1"}],"rawInput":{"command":["/bin/bash","-lc","make"],"cwd":"/p"},"_meta":{"terminal_info":{"terminal_id":"call_1","cwd":"/p"}}}}}` + "\n")
	start := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","_meta":{"terminal_output":{"terminal_id":"call_1","data":`
	var data strings.Builder
	for i := 0; data.Len() < size-len(start)-80; i++ {
		data.WriteString("cc -O2 -c src/module_")
		data.WriteString(strings.Repeat("x", i%40))
		data.WriteString(".c -o build/module.o\t[ok]\n")
	}
	update = append(rawjson.AppendQuote([]byte(start), data.String()), "}}}}}\n"...)
	return head, update
}

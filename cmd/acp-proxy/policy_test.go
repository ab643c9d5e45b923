package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A malformed policy stops the proxy before the agent starts, with the file's line and why.
func TestPolicyMalformedStopsAtStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.policy")
	require.NoError(t, os.WriteFile(bad, []byte("allow Bash(npm test)\nallow Bash(npm test && ls)\n"), 0o644))
	ran := filepath.Join(dir, "ran")
	var stdout, stderr bytes.Buffer
	code := run([]string{"--policy", bad, "--", "touch", ran}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), bad+`:2: Bash(npm test && ls): '&': a Bash rule is the words of one command`)
	assert.Empty(t, stdout.String())
	assert.NoFileExists(t, ran, "the agent never started")

	stderr.Reset()
	code = run([]string{"--policy", filepath.Join(dir, "missing.policy"), "--", "true"}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "missing.policy: no such file or directory")
}

// The policy binds through the real binary: the agent's permission request for git push is
// answered with its reject option, the editor is told which rule, and never sees the request.
func TestPolicyBindsThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	pol := writePolicy(t, dir, "deny Bash(git push:*)\n")
	req := filepath.Join(dir, "req.jsonl")
	const request = `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","kind":"execute","rawInput":{"command":"git push origin main"}},"options":[{"optionId":"yes","kind":"allow_once","name":"Yes"},{"optionId":"no","kind":"reject_once","name":"No"}]}}`
	require.NoError(t, os.WriteFile(req, []byte(request+"\n"), 0o644))

	s := start(t, "--policy", pol, "--", fakeAgent(t), "--emit", req, "--echo")
	announced, err := s.stdout.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, announced, `"sessionUpdate":"tool_call","toolCallId":"t1","title":"git push origin main","kind":"execute"`, "a call the editor never saw is announced")
	note, err := s.stdout.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, note, `"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"failed"`)
	assert.Contains(t, note, `denied by the policy (line 1: deny Bash(git push:*)): git push origin main`)
	echoed, err := s.stdout.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"no"}}}`+"\n", echoed,
		"the agent got the answer (the fake agent echoes what it reads)")
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t))
}

// `policy check` on committed traces: per request, the policy's decision beside the user's.
func TestPolicyCheckOnRecordedSessions(t *testing.T) {
	out := policyCheck(t, filepath.Join(moduleRootDir(t), "docs/starter.policy"),
		"codex-2.6-plain-writes-ask.jsonl", "opencode-1.18-plain-edit-ask.jsonl")
	for _, want := range []string{
		"codex-2.6-plain-writes-ask.jsonl: 4 decisions",
		"0.533s  permission  ask             allow_once  echo 'appended line' >> notes.txt",
		"0.667s  permission  allow (line 9)  allow_once  ls",
		"allow 1, deny 0, stop 0, ask 3; 0 where the user or the agent decided otherwise (*)",
		"opencode-1.18-plain-edit-ask.jsonl: 14 decisions",
		"7.837s   fs/write_text_file  ask     -           a.txt  no allow rule covers a.txt",
		"8.882s   unasked             ask     -           m.txt",
	} {
		assert.Contains(t, out, want)
	}
}

// `policy check` marks where the user decided otherwise than the policy would have.
func TestPolicyCheckMarksDisagreements(t *testing.T) {
	out := policyCheck(t, writePolicy(t, t.TempDir(), "deny Bash(ls)\nallow Bash(sed:*)\n"), "codex-2.6-plain-writes-ask.jsonl")
	assert.Contains(t, out, "permission  deny (line 1) *  allow_once  ls")
	assert.Contains(t, out, "allow 1, deny 1, stop 0, ask 2; 1 where the user or the agent decided otherwise (*)")
}

// A call the agent ran without asking that the policy would have denied is marked too.
func TestPolicyCheckMarksUnaskedDenials(t *testing.T) {
	out := policyCheck(t, writePolicy(t, t.TempDir(), "deny Bash(seq:*)\n"), "codex-0.16-plain-exec-5.jsonl")
	assert.Contains(t, out, "unasked  deny (line 1) *  -     for i in $(seq 1 5); do echo line $i; sleep 0.05; done  seq 1 5")
	assert.Contains(t, out, "allow 0, deny 1, stop 0, ask 0; 1 where the user or the agent decided otherwise (*)")
}

// policyCheck runs `policy check` with the policy in the file pol on the
// committed traces named (under testdata/traces), requires it to succeed,
// and returns what it wrote.
func policyCheck(t *testing.T, pol string, traces ...string) string {
	t.Helper()
	args := []string{"policy", "check", "--policy", pol}
	for _, tr := range traces {
		args = append(args, filepath.Join(moduleRootDir(t), "testdata/traces", tr))
	}
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(args, strings.NewReader(""), &stdout, &stderr), stderr.String())
	return stdout.String()
}

// writePolicy writes a policy file holding text into dir and returns its path.
func writePolicy(t *testing.T, dir, text string) string {
	t.Helper()
	pol := filepath.Join(dir, "p.policy")
	require.NoError(t, os.WriteFile(pol, []byte(text), 0o644))
	return pol
}

func TestPolicyCheckUsage(t *testing.T) {
	for _, args := range [][]string{{"policy"}, {"policy", "test"}, {"policy", "check", "x.jsonl"}} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitUsage, run(args, strings.NewReader(""), &stdout, &stderr), "%q", args)
		assert.Contains(t, stderr.String(), "acp-proxy policy check --policy FILE TRACE...", "%q", args)
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"help", "policy"}, strings.NewReader(""), &stdout, &stderr))
	assert.True(t, strings.HasPrefix(stdout.String(), "acp-proxy policy check replays"), stdout.String())
}

func moduleRootDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	return filepath.Join(wd, "..", "..")
}

// A decision that changes no message (an ask) and the user's answer to it are in the --record
// trace, as "note" records, and a replay through the policy writes the same decisions; view
// shows them in the conversation.
func TestPolicyDecisionsAreInTheTrace(t *testing.T) {
	dir := t.TempDir()
	pol := writePolicy(t, dir, "deny Bash(git push:*)\nask Bash(git:*)\n")
	req := filepath.Join(dir, "req.jsonl")
	const request = `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","kind":"execute","rawInput":{"command":"git status"}},"options":[{"optionId":"yes","kind":"allow_once","name":"Yes"},{"optionId":"no","kind":"reject_once","name":"No"}]}}`
	require.NoError(t, os.WriteFile(req, []byte(request+"\n"), 0o644))
	tracePath := filepath.Join(dir, "s.jsonl")

	s := start(t, "--policy", pol, "--record", tracePath, "--", fakeAgent(t), "--emit", req, "--echo")
	asked, err := s.stdout.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, request+"\n", asked, "asked: forwarded unchanged")
	_, err = s.stdin.Write([]byte(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}` + "\n"))
	require.NoError(t, err)
	_, err = s.stdout.ReadString('\n') // the agent's echo
	require.NoError(t, err)
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t))

	recorded, err := os.ReadFile(tracePath)
	require.NoError(t, err)
	const askNote = `"dir":"agent->client","note":{"filter":"policy","event":"policy: ask (line 2) (not bound)","sessionId":"s1","toolCallId":"t1","request":0,"detail":"ask (line 2: ask Bash(git:*)): git status"}`
	const answerNote = `"dir":"client->agent","note":{"filter":"policy","event":"user answered allow_once; policy: ask (line 2)","sessionId":"s1","toolCallId":"t1","request":0,`
	assert.Contains(t, string(recorded), askNote)
	assert.Contains(t, string(recorded), answerNote)
	assert.Less(t, strings.Index(string(recorded), askNote), strings.Index(string(recorded), `"msg":`+request), "the decision comes before its request")

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"replay", "--policy", pol, tracePath}, strings.NewReader(""), &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), askNote)
	assert.Contains(t, stdout.String(), answerNote)
}

// An agent that offers the Tool Interception checkpoint is offered it by the proxy, and gets
// the policy's answer there, before the call runs; the editor never sees the request.
func TestPolicyDecidesAtTheInterceptionCheckpoint(t *testing.T) {
	dir := t.TempDir()
	pol := writePolicy(t, dir, "allow Bash(npm test)\ndeny Bash(git push:*)\n")
	req := filepath.Join(dir, "req.jsonl")
	const intercept = `{"jsonrpc":"2.0","id":"i1","method":"_agentclientprotocol.com/tool/intercept","params":{"sessionId":"s1","phase":"before","toolCall":{"toolCallId":"t1","name":"shell","kind":"execute","rawInput":{"command":"git push origin main"}}}}`
	require.NoError(t, os.WriteFile(req, []byte(intercept+"\n"), 0o644))

	s := start(t, "--policy", pol, "--", fakeAgent(t), "--emit", req, "--echo")
	echoed, err := s.stdout.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":"i1","result":{"action":"replace","result":{"status":"failed","content":[{"type":"content","content":{"type":"text","text":"acp-proxy: denied by the policy (line 2: deny Bash(git push:*)): git push origin main"}}]}}}`+"\n",
		echoed, "the agent got the answer (the fake agent echoes what it reads); the editor never saw the request")
	_, err = s.stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"))
	require.NoError(t, err)
	echoed, err = s.stdout.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, echoed, `"clientCapabilities":{"_meta":{"agentclientprotocol.com":{"toolInterception":{"before":true}}}}`, "the agent is offered the checkpoint")
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t))
}

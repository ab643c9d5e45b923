package capabilities

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
)

// agentLine has n observe a line the agent sent, and returns it.
func agentLine(n *Negotiated, line string) *acp.Message {
	m := acp.NewMessage(acp.AgentToClient, []byte(line), time.Time{})
	n.Observe(m)
	return m
}

func TestTurnEndedByThePromptsResponse(t *testing.T) {
	for _, tc := range []struct {
		name     string
		requests [][3]string // method, id, params
		response string      // the agent's line
		session  string      // the session whose turn it ends; "": none
	}{
		{"a result", [][3]string{{"session/prompt", `1`, `{"sessionId":"S","prompt":[]}`}},
			`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, "S"},
		{"an error", [][3]string{{"session/prompt", `"p"`, `{"sessionId":"S","prompt":[]}`}},
			`{"jsonrpc":"2.0","id":"p","error":{"code":-32603,"message":"boom"}}`, "S"},
		{"the prompt of another id", [][3]string{{"session/prompt", `1`, `{"sessionId":"S"}`}},
			`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`, ""},
		{"an id of another type", [][3]string{{"session/prompt", `1`, `{"sessionId":"S"}`}},
			`{"jsonrpc":"2.0","id":"1","result":{"stopReason":"end_turn"}}`, ""},
		{"the agent's request of the same id", [][3]string{{"session/prompt", `1`, `{"sessionId":"S"}`}},
			`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"S"}}`, ""},
		{"a notification", [][3]string{{"session/prompt", `1`, `{"sessionId":"S"}`}},
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{}}}`, ""},
		{"a prompt that names no session", [][3]string{{"session/prompt", `1`, `{"prompt":[]}`}},
			`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, ""},
		{"the answer to a session/new", [][3]string{{"session/new", `1`, `{"cwd":"/p"}`}},
			`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`, ""},
		{"SessionId is not sessionId", [][3]string{{"session/prompt", `1`, `{"SessionId":"S"}`}},
			`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, ""},
		{"the later prompt of a reused id", [][3]string{{"session/prompt", `1`, `{"sessionId":"S"}`}, {"session/prompt", `1`, `{"sessionId":"T"}`}},
			`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`, "T"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := New()
			for _, r := range tc.requests {
				request(n, r[0], r[1], r[2])
			}
			m := agentLine(n, tc.response)
			sid, ok := n.TurnEnded(m)
			assert.Equal(t, tc.session != "", ok)
			assert.Equal(t, tc.session, sid)
		})
	}
}

func TestAResponseAnswersOnce(t *testing.T) {
	n := New()
	request(n, "session/prompt", `1`, `{"sessionId":"S"}`)
	first := respond(n, `1`, `{"stopReason":"end_turn"}`)
	sid, ok := n.TurnEnded(first)
	require.True(t, ok)
	assert.Equal(t, "S", sid)
	_, ok = n.TurnEnded(first)
	assert.True(t, ok, "every filter that asks while the response passes is told")

	agentLine(n, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{}}}`)
	_, ok = n.TurnEnded(first)
	assert.True(t, ok, "a notification after it changes nothing")
	again := respond(n, `1`, `{"stopReason":"end_turn"}`)
	_, ok = n.TurnEnded(again)
	assert.False(t, ok, "a second response to the same id answers nothing")
	_, ok = n.TurnEnded(first)
	assert.False(t, ok, "past the next response, the first one is forgotten")
}

func TestAnsweredNamesTheRequest(t *testing.T) {
	n := New()
	request(n, "session/new", `"n"`, `{"cwd":"/w","mcpServers":[]}`)
	request(n, "session/resume", `"r"`, `{"sessionId":"R","cwd":"/r"}`)
	req, ok := n.Answered(respond(n, `"n"`, `{"sessionId":"S"}`))
	require.True(t, ok)
	assert.Equal(t, Request{Method: "session/new", Session: "S", Cwd: "/w"}, req)
	assert.Equal(t, "/w", n.Cwd("S"))
	req, ok = n.Answered(respond(n, `"r"`, ""))
	require.True(t, ok)
	assert.Equal(t, Request{Method: "session/resume", Session: "R", Cwd: "/r"}, req)
	assert.Equal(t, "/r", n.Cwd("R"), "a resumed session's directory is known from its request")
}

func TestLoadingUntilEveryLoadIsAnswered(t *testing.T) {
	n := New()
	assert.False(t, n.Loading("L"))
	request(n, "session/load", `1`, `{"sessionId":"L","cwd":"/l"}`)
	request(n, "session/load", `2`, `{"sessionId":"L","cwd":"/l"}`)
	request(n, "session/load", `3`, `{"sessionId":"M","cwd":"/m"}`)
	assert.True(t, n.Loading("L"))
	respond(n, `1`, `{}`)
	assert.True(t, n.Loading("L"), "one load of L is still replaying")
	respond(n, `2`, "")
	assert.False(t, n.Loading("L"), "an error answers a load too")
	assert.True(t, n.Loading("M"))
	request(n, "session/prompt", `3`, `{"sessionId":"M"}`)
	assert.False(t, n.Loading("M"), "the id was used again: the load it named is no longer answered")
}

func TestRequestsInFlightAreBounded(t *testing.T) {
	n := New()
	for i := range maxInFlight {
		request(n, "session/prompt", strconv.Itoa(i), `{"sessionId":"S"}`)
	}
	request(n, "session/load", `"over"`, `{"sessionId":"L"}`)
	assert.False(t, n.Loading("L"), "past the bound, a request is not followed")
	_, ok := n.TurnEnded(respond(n, `0`, `{"stopReason":"end_turn"}`))
	assert.True(t, ok, "those followed still are")
	request(n, "session/load", `"room"`, `{"sessionId":"L"}`)
	assert.True(t, n.Loading("L"), "an answer makes room")
}

func TestANilTrackerKnowsNothing(t *testing.T) {
	var n *Negotiated
	m := acp.NewMessage(acp.AgentToClient, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), time.Time{})
	_, ok := n.Answered(m)
	assert.False(t, ok)
	_, ok = n.TurnEnded(m)
	assert.False(t, ok)
	assert.False(t, n.Loading("S"))
	assert.Empty(t, n.Cwd("S"))
	assert.Zero(t, n.ProtocolVersion())
	_, ok = n.Client()
	assert.False(t, ok)
	_, ok = n.Agent()
	assert.False(t, ok)
}

// A client's line that begins with a method the tracker does not follow
// is not parsed; one that begins with a method it follows is, and is
// recorded, whichever comes first in it, its method or its id.
func TestAClientLineOfAMethodNotFollowedIsNotParsed(t *testing.T) {
	n := New()
	cancel := acp.NewMessage(acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S"}}`), time.Time{})
	n.Observe(cancel)
	assert.False(t, cancel.Looked(), "not parsed")

	for i, line := range []string{
		`{"jsonrpc":"2.0","method":"session/prompt","id":1,"params":{"sessionId":"S","prompt":[]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"T","prompt":[]}}`,
	} {
		n.Observe(acp.NewMessage(acp.ClientToAgent, []byte(line), time.Time{}))
		sid, ok := n.TurnEnded(respond(n, strconv.Itoa(i+1), `{"stopReason":"end_turn"}`))
		assert.True(t, ok, line)
		assert.Equal(t, []string{"S", "T"}[i], sid, line)
	}
}

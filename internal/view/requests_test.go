package view

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/acp"
)

// A response is answered by the request of its id sent the other way,
// once; what it answers holds until the next response.
func TestRequestsMatchEachResponseToItsRequest(t *testing.T) {
	type step struct {
		dir    acp.Direction
		line   string
		answer string // the method Answered gives a response; "" for none
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"both directions", []step{
			{acp.ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`, ""},
			{acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{}}`, ""},
			{acp.ClientToAgent, `{"jsonrpc":"2.0","id":1,"result":{}}`, "fs/read_text_file"},
			{acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{}}`, "session/prompt"},
		}},
		{"a response answers once", []step{
			{acp.ClientToAgent, `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}`, ""},
			{acp.AgentToClient, `{"jsonrpc":"2.0","id":"a","result":{}}`, "initialize"},
			{acp.AgentToClient, `{"jsonrpc":"2.0","id":"a","result":{}}`, ""},
		}},
		{"ids are raw: 1 is not \"1\"", []step{
			{acp.ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, ""},
			{acp.AgentToClient, `{"jsonrpc":"2.0","id":"1","result":{}}`, ""},
		}},
		{"an id used again replaces the request", []step{
			{acp.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`, ""},
			{acp.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/load","params":{}}`, ""},
			{acp.AgentToClient, `{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}`, "session/load"},
		}},
		{"notifications are not followed", []step{
			{acp.ClientToAgent, `{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, ""},
			{acp.AgentToClient, `{"jsonrpc":"2.0","id":null,"result":{}}`, ""},
		}},
	} {
		r := newRequests()
		for i, st := range tc.steps {
			m := acp.NewMessage(st.dir, []byte(st.line), time.Time{})
			r.Observe(m)
			req, ok := r.Answered(m)
			assert.Equal(t, st.answer != "", ok, "%s: step %d", tc.name, i)
			if ok {
				assert.Equal(t, st.answer, req.Method, "%s: step %d", tc.name, i)
			}
		}
	}
}

package acp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func line(d Direction, raw string) *Message { return NewMessage(d, []byte(raw), time.Time{}) }

func TestRequestsMatchAResponseToTheRequestOfItsIDSentTheOtherWay(t *testing.T) {
	var r Requests[string]
	_, _, followed := r.Open(line(ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"session/prompt"}`), "prompt")
	require.True(t, followed)
	r.Open(line(AgentToClient, `{"jsonrpc":"2.0","id":1,"method":"session/request_permission"}`), "permission")
	assert.Equal(t, 2, r.Len(), "the same id each way is two requests")

	perm := line(ClientToAgent, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	got, ok := r.Close(perm)
	require.True(t, ok)
	assert.Equal(t, "permission", got, "a client→agent response answers the agent's request")
	got, ok = r.Answered(perm)
	assert.True(t, ok)
	assert.Equal(t, "permission", got, "Answered holds while the response passes")

	end := line(AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
	_, ok = r.Answered(end)
	assert.False(t, ok, "not before it is closed")
	got, ok = r.Close(end)
	require.True(t, ok)
	assert.Equal(t, "prompt", got)
	_, ok = r.Answered(perm)
	assert.False(t, ok, "only the last response closed is answered")
	assert.Zero(t, r.Len())
	assert.False(t, r.Idle(), "the last answer is still remembered")

	_, ok = r.Close(line(AgentToClient, `{"jsonrpc":"2.0","id":9,"result":{}}`))
	assert.False(t, ok, "a response to no request answers nothing")
	assert.True(t, r.Idle(), "and forgets the last answer")
}

func TestRequestsKeysAreRawIDs(t *testing.T) {
	var r Requests[int]
	r.Open(line(ClientToAgent, `{"jsonrpc":"2.0","id":"1","method":"a"}`), 1)
	_, ok := r.Close(line(AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{}}`))
	assert.False(t, ok, `"1" and 1 are different ids`)
	_, ok = r.Close(line(AgentToClient, `{"jsonrpc":"2.0","id":"1","result":{}}`))
	assert.True(t, ok)
}

func TestRequestsAnIDUsedAgainReplacesTheEarlierRequest(t *testing.T) {
	var r Requests[string]
	r.Open(line(ClientToAgent, `{"jsonrpc":"2.0","id":7,"method":"a"}`), "first")
	old, replaced, followed := r.Open(line(ClientToAgent, `{"jsonrpc":"2.0","id":7,"method":"b"}`), "second")
	assert.True(t, replaced)
	assert.True(t, followed)
	assert.Equal(t, "first", old)
	got, _ := r.Close(line(AgentToClient, `{"jsonrpc":"2.0","id":7,"result":{}}`))
	assert.Equal(t, "second", got)
}

func TestRequestsPastMaxAreNotFollowed(t *testing.T) {
	r := Requests[int]{Max: 2}
	for i, raw := range []string{`{"id":1,"method":"a"}`, `{"id":2,"method":"a"}`, `{"id":3,"method":"a"}`} {
		_, _, followed := r.Open(line(ClientToAgent, raw), i)
		assert.Equal(t, i < 2, followed, raw)
	}
	_, _, followed := r.Open(line(ClientToAgent, `{"method":"a"}`), 9)
	assert.False(t, followed, "a notification has no response to wait for")
	got, ok := r.Get(line(ClientToAgent, `{"id":2,"method":"a"}`))
	assert.True(t, ok)
	assert.Equal(t, 1, got)
}

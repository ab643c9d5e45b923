package telemetry

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/otlptest"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// A permission request the proxy answers itself (the policy: the client never sees it) has its
// span ended at the proxy's answer, with the option chosen and that the proxy chose it.
func TestAPermissionTheProxyAnsweredEndsItsSpan(t *testing.T) {
	r := otlptest.New(t)
	p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL, Version: "test"})
	require.NoError(t, err)
	tap := NewTap(p.NewConn(ConnInfo{Agent: []string{"codex-acp"}}), nil)
	start := time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
	for _, s := range aSession[:7] { // up to the call, before its permission request
		if s.note == nil {
			tap.Passed(&proxy.Passage{Dir: s.dir, Time: start.Add(s.at), Line: []byte(s.line), EOL: true})
		}
	}
	asked := start.Add(300 * time.Millisecond)
	tap.Passed(&proxy.Passage{Dir: a2c, Time: asked, Line: []byte(aSession[7].line), EOL: true}) // dropped: no Out
	tap.Added(c2a, asked.Add(time.Millisecond), []byte(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"no"}}}`), false)
	require.NoError(t, tap.End(c2a))
	require.NoError(t, tap.End(a2c))
	p.Close(10*time.Second, nil)

	perms := r.ByName()["acp.permission_request"]
	require.Len(t, perms, 1)
	perm := perms[0]
	a := otlptest.Attrs(perm.Attributes)
	assert.Equal(t, "selected", a["acp.permission.outcome"])
	assert.Equal(t, "reject_once", a["acp.permission.option_kind"])
	assert.Equal(t, "true", a["acp.answered_by_proxy"])
	assert.Equal(t, uint64(asked.Add(time.Millisecond).UnixNano()), perm.EndTimeUnixNano, "ended at the proxy's answer")
}

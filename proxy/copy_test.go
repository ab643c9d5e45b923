package proxy

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
)

// With no filter and no tap the relay is a byte-copying loop: what the
// agent wrote reaches the client as soon as it is read, the start of a
// line before its end arrives, as it would without the proxy.
func TestTheUntouchedRelayPassesBytesAsTheyArrive(t *testing.T) {
	agentR, agentW := io.Pipe()
	clientR, clientW := io.Pipe()
	conn := (&Relay{}).Open(io.Discard, clientW)
	pumped := make(chan error, 1)
	go func() { pumped <- conn.Pump(acp.AgentToClient, agentR) }()

	read := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, _ := clientR.Read(buf)
		read <- string(buf[:n])
	}()
	_, err := agentW.Write([]byte(`{"jsonrpc":"2.0","method":"session/up`))
	require.NoError(t, err)
	select {
	case got := <-read:
		assert.Equal(t, `{"jsonrpc":"2.0","method":"session/up`, got)
	case <-time.After(5 * time.Second):
		t.Fatal("the start of a line waited for its end")
	}
	go io.Copy(io.Discard, clientR)
	require.NoError(t, agentW.Close())
	require.NoError(t, <-pumped)
}

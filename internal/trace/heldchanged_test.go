package trace

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// changedStream is an agent's output of which a Holding filter holds
// three lines and sends them on later: one as it came, two changed (as
// --show-changes sends a call's end with its diffs), the last of them
// without its '\n'.
const changedStream = `{"method":"hold","n":1}` + "\n" + `{"method":"rewrite","n":2}` + "\n" + `{"method":"release"}` + "\n" + `{"method":"rewrite","last":1}`

// A held line that leaves changed is recorded as the agent's line leaving,
// late ("heldSince"), with what left in its place ("out"), as a changed
// line's record has it: not as the line dropped and a line the proxy
// added.
func TestAHeldLineLeavingChangedIsRecordedAsTheAgentsLine(t *testing.T) {
	recorded, got := recordHolding(t, changedStream)
	assert.Equal(t, `{"method":"hold","n":1}`+"\n"+`{"method":"rewritten","n":2}`+"\n"+`{"method":"release"}`+"\n"+`{"method":"rewritten","last":1}`+"\n", string(got))
	want := `{"t":1.000000,"dir":"agent->client","msg":{"method":"hold","n":1},"held":true}
{"t":1.000000,"dir":"agent->client","msg":{"method":"rewrite","n":2},"held":true}
{"t":1.000000,"dir":"agent->client","msg":{"method":"hold","n":1},"heldSince":1.000000}
{"t":1.000000,"dir":"agent->client","msg":{"method":"rewrite","n":2},"heldSince":1.000000,"out":[{"method":"rewritten","n":2}]}
{"t":1.000000,"dir":"agent->client","msg":{"method":"release"}}
{"t":1.000000,"dir":"agent->client","msg":{"method":"rewrite","last":1},"eol":false,"held":true}
{"t":2.000000,"dir":"agent->client","msg":{"method":"rewrite","last":1},"eol":false,"heldSince":1.000000,"out":[{"method":"rewritten","last":1}]}
`
	assert.Equal(t, want, string(recorded))
	recs := records(t, recorded)
	require.Len(t, recs, 7)
	assert.True(t, recs[3].Released && recs[3].HasOut && !recs[3].Held)
	assert.Equal(t, [][]byte{[]byte(`{"method":"rewritten","n":2}`)}, recs[3].Out)
	assert.Equal(t, recs[1].Line, recs[3].Line, "the line as it came")

	var red bytes.Buffer
	require.NoError(t, Redact(NewReader(bytes.NewReader(recorded)), &red))
	assert.Equal(t, 2, strings.Count(red.String(), `"heldSince":1.000000,"out":[`), "redacting keeps what left")
}

// A replay of that trace delivers what the recording proxy sent, each line
// once, each made from its own received line (a held line's release, changed
// or not, is its line's, not a timer's); with no filters, the lines as they
// came. --summary counts each held line once before the filters and once
// after, what left for it (with no filters, what the recording proxy sent:
// the same).
func TestAReplayDeliversAHeldLineLeavingChangedOnce(t *testing.T) {
	recorded, got := recordHolding(t, changedStream)
	sent := sentCount(got)
	for _, chain := range []*filters.Chain{nil, holdingChain()} {
		delivered, sum := replayHeld(t, recorded, chain)
		dir := sum.Report().Directions[acp.AgentToClient]
		assert.EqualValues(t, 4, dir.Before.Messages)
		assert.Equal(t, sent, dir.After, "each line once, what left for it")
		if chain == nil {
			assert.Equal(t, changedStream, delivered.lines)
			continue
		}
		assert.Equal(t, string(got), delivered.lines)
		assert.Equal(t, []int{0, 1, 2, 3}, delivered.srcs, "each held line is its own source")
	}
}

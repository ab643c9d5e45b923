package view

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// heldTrace is a recording in which a filter held two of the agent's lines
// (a log line, a message) and sent them on later, as they came.
const heldTrace = `{"t":0.1,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"a"}}
{"t":0.2,"dir":"agent->client","text":"a log line","held":true}
{"t":0.3,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"hold"},"held":true}
{"t":0.4,"dir":"client->agent","msg":{"jsonrpc":"2.0","method":"b"}}
{"t":0.5,"dir":"agent->client","text":"a log line","heldSince":0.2}
{"t":0.5,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"hold"},"heldSince":0.3}
{"t":0.5,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"release"}}
`

// A held line is shown as the received line passing, late: after it, the
// line itself, made from it (not added, not released by a timer), and
// counted once on each side; as recorded, and replayed through a filter
// that holds it.
func TestAHeldLineIsShownPassedUnchanged(t *testing.T) {
	for name, d := range map[string]*Data{
		"as recorded": build(t, heldTrace),
		"replayed":    build(t, heldTrace, &chaintest.Holding{}),
	} {
		type row struct {
			Side  string
			Src   int
			Timer bool
		}
		var rows []row
		for _, m := range d.Messages {
			rows = append(rows, row{m.Side, m.Src, m.Timer})
		}
		assert.Equal(t, []row{
			{"b", 0, false}, {"a", 0, false},
			{"b", 1, false},
			{"b", 2, false},
			{"b", 3, false}, {"a", 3, false},
			{"a", 1, false}, {"a", 2, false},
			{"b", 4, false}, {"a", 4, false},
		}, rows, name)
		for _, dir := range d.Directions {
			assert.Equal(t, dir.Before, dir.After, "%s: %s", name, dir.Direction)
		}
	}
}

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

// changedTrace is a recording in which a filter held one of the agent's
// lines and sent it on later changed (as --show-changes sends a call's end
// with its diffs).
const changedTrace = `{"t":0.1,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"a"}}
{"t":0.3,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"rewrite"},"held":true}
{"t":0.4,"dir":"client->agent","msg":{"jsonrpc":"2.0","method":"b"}}
{"t":0.5,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"rewrite"},"heldSince":0.3,"out":[{"jsonrpc":"2.0","method":"rewritten"}]}
{"t":0.5,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"release"}}
`

// A held line that left changed is shown as the received line passing,
// late, as what left in its place: made from it (not added, not released
// by a timer), each counted once on its side; as recorded, and replayed
// through a filter that holds it and sends it on changed.
func TestAHeldLineIsShownLeavingChanged(t *testing.T) {
	for name, d := range map[string]*Data{
		"as recorded": build(t, changedTrace),
		"replayed":    build(t, changedTrace, &chaintest.Holding{}),
	} {
		type row struct {
			Side  string
			Label string
			Src   int
			Timer bool
		}
		var rows []row
		for _, m := range d.Messages {
			rows = append(rows, row{m.Side, m.Label, m.Src, m.Timer})
		}
		assert.Equal(t, []row{
			{"b", "a", 0, false}, {"a", "a", 0, false},
			{"b", "rewrite", 1, false},
			{"b", "b", 2, false}, {"a", "b", 2, false},
			{"a", "rewritten", 1, false},
			{"b", "release", 3, false}, {"a", "release", 3, false},
		}, rows, name)
		for _, dir := range d.Directions {
			if dir.Direction == "agent->client" {
				assert.Equal(t, dir.Before.Messages, dir.After.Messages, "%s: each line once", name)
				assert.Equal(t, dir.Before.Bytes+2, dir.After.Bytes, "%s: what left", name)
				continue
			}
			assert.Equal(t, dir.Before, dir.After, "%s: %s", name, dir.Direction)
		}
	}
}

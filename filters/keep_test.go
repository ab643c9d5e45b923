package filters_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

func TestKeepCopiesUnlessTheRelayGivesItsBuffer(t *testing.T) {
	line := []byte(`{"method":"x","p":"abcdef"}`)
	m := filters.NewMessage(acp.AgentToClient, line, time.Time{}, nil)
	kept := m.Keep(filters.Kept{}, line[5:10])
	assert.Equal(t, string(line[5:10]), string(kept.Bytes))
	line[5] = '!'
	assert.NotEqual(t, string(line[5:10]), string(kept.Bytes), "with no Give, a copy")

	room := kept.Bytes
	again := m.Keep(kept, line[6:9])
	assert.Same(t, &room[0], &again.Bytes[0], "the copy before is written over: its room is used again")

	var spares [][]byte
	m.Give = func(part, spare []byte) ([]byte, bool) {
		spares = append(spares, spare)
		return line, true
	}
	given := m.Keep(again, line[2:8])
	assert.Same(t, &line[2], &given.Bytes[0], "given, the part where it lies")
	assert.Equal(t, [][]byte{nil}, spares, "a copy is not a buffer to hand back")
	m.Keep(given, line[3:4])
	assert.Same(t, &line[0], &spares[1][0], "what was given is handed back")

	m.Give = func(part, spare []byte) ([]byte, bool) { return nil, false }
	copied := m.Keep(given, line[1:3])
	assert.Equal(t, string(line[1:3]), string(copied.Bytes))
	assert.NotSame(t, &line[0], &copied.Bytes[:cap(copied.Bytes)][0], "a copy never goes into the relay's buffer")
}

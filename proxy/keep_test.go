package proxy

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keeper is a filter that keeps a part of every line past its Apply, the
// way a filter keeps a call's last content: one Kept per key, handed back
// when the key's next line comes. At each line it checks that every part
// it keeps still holds the bytes it kept.
type keeper struct {
	t     testing.TB
	kept  map[string]filters.Kept
	want  map[string]string
	given int // parts kept where they lay, not copied
}

func (k *keeper) filter() filters.Filter {
	return filters.Func{FilterName: "keeper", Fn: func(m *filters.Message, _ filters.Emitter) error {
		for key, kept := range k.kept {
			require.True(k.t, k.want[key] == string(kept.Bytes), "what %s keeps, after the relay read on, is what it kept", key)
		}
		key, _ := m.Method(), 0
		part := m.Raw[len(m.Raw)/4:]
		prev := k.kept[key]
		kept := m.Keep(prev, part)
		if len(part) > 0 && &kept.Bytes[0] == &part[0] {
			k.given++
		}
		k.kept[key], k.want[key] = kept, string(part)
		return nil
	}}
}

// keptLines is n lines of keys taking turns, of sizes from 1 B to 300 KiB.
func keptLines(n int, keys []string, rng *rand.Rand) []byte {
	var b bytes.Buffer
	for i := range n {
		size := 1 + rng.IntN(300<<10)
		if i%3 == 0 {
			size = 1 + rng.IntN(200)
		}
		fmt.Fprintf(&b, `{"method":%q,"n":%d,"p":"%s"}`+"\n", keys[i%len(keys)], i, strings.Repeat(string(rune('a'+i%26)), size))
	}
	return b.Bytes()
}

func TestAPartAFilterKeepsHoldsWhileTheRelayReadsOn(t *testing.T) {
	for _, keys := range [][]string{{"one"}, {"one", "two", "three"}} {
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 2))
			in := keptLines(60, keys, rng)
			k := &keeper{t: t, kept: map[string]filters.Kept{}, want: map[string]string{}}
			r := &Relay{Chain: filters.NewChain(capabilities.New(), k.filter())}
			src := io.Reader(&choppyReader{b: in, rng: rng, max: 100000})
			got := relayOnce(t, r, acp.AgentToClient, src)
			require.Equal(t, string(in), string(got), "relayed unchanged")
			assert.Positive(t, k.given, "long parts are kept where they lie, not copied")
		}
	}
}

func TestTheFramerGivesABufferToOneKeeperAtATime(t *testing.T) {
	f := newFramer(strings.NewReader(strings.Repeat("x", 100<<10)+"\n"+strings.Repeat("y", 100<<10)+"\n"), 64<<10, DefaultMaxFilterLine)
	first, err := f.next()
	require.NoError(t, err)
	buf, ok := first.give(first.bytes, nil)
	require.True(t, ok, "a part of 100 KiB is worth its buffer")
	_, ok = first.give(first.bytes[:minGiven], nil)
	assert.False(t, ok, "given once, the buffer goes to no other keeper")
	_, ok = first.give(first.bytes[:minGiven], buf)
	assert.True(t, ok, "its keeper, handing it back, may keep another part of it")
	_, ok = first.give(first.bytes[:minGiven-1], buf)
	assert.False(t, ok, "a short part is copied")

	second, err := f.next()
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("x", 100<<10), string(first.bytes), "the given line is not written over")
	assert.Equal(t, strings.Repeat("y", 100<<10), string(second.bytes))
}

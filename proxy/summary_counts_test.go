package proxy

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// countingFilter forwards everything and reports fixed counts of its own.
type countingFilter struct{}

func (countingFilter) Name() string { return "counting" }
func (countingFilter) Apply(m *filters.Message, out filters.Emitter) error {
	return nil
}
func (countingFilter) Counts() map[string]int64 {
	return map[string]int64{"editsTakenBack": 2, "never": 0}
}

// A filter's own counts reach --stats and replay --summary: those that are not zero.
func TestSummaryReportsTheFiltersOwnCounts(t *testing.T) {
	sum := NewSummary(filters.NewChain(capabilities.New(), countingFilter{}))
	r := sum.Report()
	require.Len(t, r.Filters, 1)
	assert.Equal(t, map[string]int64{"editsTakenBack": 2}, r.Filters[0].Counts)
	var text, js bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.Regexp(t, `counting editsTakenBack +2`, text.String())
	assert.NotContains(t, text.String(), "never")
	require.NoError(t, r.WriteJSON(&js))
	assert.Contains(t, js.String(), `"counts": {`)
}

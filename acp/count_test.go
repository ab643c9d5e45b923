package acp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/acp"
)

func TestCountIncludesEachLinesNewline(t *testing.T) {
	var c acp.Count
	c.Line(0) // an empty line is still one '\n' on the wire
	c.Line(10)
	assert.Equal(t, acp.Count{Messages: 2, Bytes: 12}, c)

	c.Plus(acp.Count{Messages: 3, Bytes: 30})
	assert.Equal(t, acp.Count{Messages: 5, Bytes: 42}, c)
}

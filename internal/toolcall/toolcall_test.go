package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListKeysCallsBySessionAndID(t *testing.T) {
	var l List[string]
	a, b := "call_0 of s1", "call_0 of s2"
	l.Add("s1", "call_0", &a)
	l.Add("s2", "call_0", &b)
	assert.Equal(t, &a, l.Get("s1", "call_0"))
	assert.Equal(t, &b, l.Get("s2", "call_0"))
	assert.Nil(t, l.Get("s3", "call_0"))

	l.Remove("s1", "call_0")
	assert.Nil(t, l.Get("s1", "call_0"))
	assert.Equal(t, &b, l.Get("s2", "call_0"), "removing one session's call keeps the other's")

	l.RemoveSession("s2")
	assert.Zero(t, l.Len())
}

func TestListEvictsTheOldestPastMax(t *testing.T) {
	l := List[int]{Max: 2}
	one, two, three := 1, 2, 3
	assert.Nil(t, l.Add("s", "1", &one))
	assert.Nil(t, l.Add("s", "2", &two))
	assert.Equal(t, &one, l.Add("s", "3", &three))
	var order []int
	require.NoError(t, l.Each(func(v *int) error { order = append(order, *v); return nil }))
	assert.Equal(t, []int{2, 3}, order)
}

func TestListRemoveOldest(t *testing.T) {
	var l List[int]
	one, two := 1, 2
	assert.Nil(t, l.RemoveOldest())
	l.Add("s", "1", &one)
	l.Add("s", "2", &two)
	assert.Equal(t, &one, l.RemoveOldest())
	assert.Nil(t, l.Get("s", "1"))
	assert.Equal(t, &two, l.Get("s", "2"))
	assert.Equal(t, 1, l.Len())
}

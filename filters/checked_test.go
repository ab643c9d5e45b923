package filters_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// longOutput is a string value long enough that the view leaves its
// contents unchecked, ending in the given escape.
func longOutput(escape string) string {
	return `"` + strings.Repeat("make: ok\\n", rawjson.LongString/10+1) + escape + `"`
}

func TestTheViewLeavesOnlyLongStringsUnchecked(t *testing.T) {
	cases := []struct {
		name           string
		line           string
		valid, checked bool
	}{
		{"a long valid string", `{"method":"x","params":{"data":` + longOutput(`\t`) + `}}`, true, true},
		{"a long string with a bad escape", `{"method":"x","params":{"data":` + longOutput(`\x`) + `}}`, true, false},
		{"a short string with a bad escape", `{"method":"x","params":{"data":"\x"}}`, false, false},
		{"a long string in a broken object", `{"method":"x","params":{"data":` + longOutput(`\t`) + `}`, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := filters.NewMessage(acp.AgentToClient, []byte(c.line), time.Time{}, nil)
			assert.Equal(t, c.valid, m.Valid())
			assert.Equal(t, c.checked, m.Checked())
			assert.Equal(t, rawjson.Valid(m.Raw), m.Checked(), "Checked agrees with a full validation")
			if c.valid {
				assert.Equal(t, "x", m.Method())
			}
		})
	}
}

// A filter may splice bytes of a string the view did not check (the
// output it keeps, say) into a line it writes. The chain checks such a
// line in full: when it is not valid JSON, the line as the agent sent it
// goes instead, once, and the failure is reported.
func TestALineAFilterWroteReachesThePeerOnlyAsValidJSON(t *testing.T) {
	bad := `{"method":"x","params":{"data":` + longOutput(`\x`) + `}}`
	good := `{"method":"x","params":{"data":` + longOutput(`\t`) + `}}`
	// wrap re-emits the data string it was given in a new object, as a
	// filter copying raw output does, twice.
	wrap := filters.Func{FilterName: "wrap", Fn: func(m *filters.Message, out filters.Emitter) error {
		data, _ := rawjson.TrustedGet(m.Params(), "data")
		for range 2 {
			if err := out.Emit(m.Dir, append(append([]byte(`{"method":"y","params":{"copy":`), data...), "}}"...)); err != nil {
				return err
			}
		}
		return nil
	}}
	var failures []string
	c := filters.NewChain(capabilities.New(), wrap)
	c.OnError = func(_ acp.Direction, filter string, err error) {
		failures = append(failures, filter+": "+err.Error())
	}

	got := chaintest.Run(t, c, acp.AgentToClient, bad, good)
	copied := `{"method":"y","params":{"copy":` + longOutput(`\t`) + `}}`
	assert.Equal(t, []chaintest.Sent{
		{Dir: acp.AgentToClient, Raw: bad, Original: true},
		{Dir: acp.AgentToClient, Raw: copied},
		{Dir: acp.AgentToClient, Raw: copied},
	}, got, "the broken copies give way to the line as it came, once; good copies pass")
	assert.Equal(t, []string{"chain: " + filters.ErrInvalidLine.Error(), "chain: " + filters.ErrInvalidLine.Error()}, failures)
}

func TestALineAFilterSendsBackMustBeValidJSON(t *testing.T) {
	answer := filters.Func{FilterName: "answer", Fn: func(m *filters.Message, out filters.Emitter) error {
		data, _ := rawjson.TrustedGet(m.Params(), "data")
		if err := out.Emit(m.Dir.Reverse(), append(append([]byte(`{"id":1,"result":`), data...), '}')); err != nil {
			return err
		}
		return nil
	}}
	var failures []string
	c := filters.NewChain(capabilities.New(), answer)
	c.OnError = func(_ acp.Direction, filter string, err error) { failures = append(failures, filter) }
	bad := `{"method":"x","params":{"data":` + longOutput(`\x`) + `}}`
	got := chaintest.Run(t, c, acp.AgentToClient, bad)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: bad, Original: true}}, got)
	assert.Equal(t, []string{"answer"}, failures)
}

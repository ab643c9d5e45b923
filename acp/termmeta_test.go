package acp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTermMetaExitStatusAndData(t *testing.T) {
	for _, tc := range []struct {
		meta              string
		code, signal      string // raw; "" for absent
		output, delta     string // decoded
		rawOut, rawDelta  string // as sent
		outNil, deltaNil  bool
		outputID, deltaID string
	}{
		{meta: `{"terminal_exit":{"terminal_id":"t","exit_code":2,"signal":null}}`, code: "2", signal: "null", outNil: true, deltaNil: true},
		{meta: `{"terminal_exit":{"terminal_id":"t","signal":"SIGKILL"}}`, signal: `"SIGKILL"`, outNil: true, deltaNil: true},
		{meta: `{"terminal_output":{"terminal_id":"a","data":"x\ty\u00e9\n"}}`, output: "x\tyé\n", rawOut: `x\ty\u00e9\n`, deltaNil: true, outputID: "a"},
		{meta: `{"terminal_output_delta":{"data":"","terminal_id":"b"}}`, outNil: true, deltaID: "b"},
		{meta: `{"terminal_output":{"data":null},"terminal_output_delta":{"data":7}}`, outNil: true, deltaNil: true},
		{meta: `{"terminal_output":{"terminal_id":"a","data":"one"},"terminal_exit":{"exit_code":0}}`, code: "0", output: "one", rawOut: "one", deltaNil: true, outputID: "a"},
		{meta: `{"other":{"exit_code":1,"data":"no"}}`, outNil: true, deltaNil: true},
	} {
		tm := ParseTermMeta([]byte(tc.meta))
		code, signal := tm.ExitStatus()
		assert.Equal(t, tc.code, string(code), tc.meta)
		assert.Equal(t, tc.code == "", code == nil, tc.meta)
		assert.Equal(t, tc.signal, string(signal), tc.meta)
		out, delta := Data(tm)
		assert.Equal(t, tc.output, out, tc.meta)
		assert.Equal(t, tc.delta, delta, tc.meta)
		rawOut, rawDelta := RawData(tm)
		assert.Equal(t, tc.rawOut, string(rawOut), tc.meta)
		assert.Equal(t, tc.rawDelta, string(rawDelta), tc.meta)
		assert.Equal(t, tc.outNil, rawOut == nil, tc.meta)
		assert.Equal(t, tc.deltaNil, rawDelta == nil, tc.meta)
		ids := tm.TerminalIDs()
		assert.Equal(t, tc.outputID, ids[1], tc.meta)
		assert.Equal(t, tc.deltaID, ids[2], tc.meta)
	}
}

package output

import (
	"crypto/sha256"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// Some agents repeat a call's members in every update: opencode sends
// status, kind, title, locations and rawInput again with each snapshot of
// a running command. A client keeps every member an update leaves out
// (all but toolCallId are optional, and an absent member is unchanged), so
// a member whose value is, byte for byte, the one the client already holds
// for the call can be left out without changing what it shows.
//
// What the client holds is what the last message naming the call carried:
// the tool_call, a tool_call_update, or the toolCall of a
// session/request_permission (Zed applies it to the call, and opencode's
// differs: locations [] and rawInput {command}). So every such message of a
// kept call is noted, and only an exact repeat of the latest value is
// dropped. Values are compared by their SHA-256.

// repeatable are the members that may be left out when repeated. content is
// not among them: the output filters handle it.
var repeatable = [...]string{"status", "kind", "title", "locations", "rawInput"}

// heldMembers is what a client holds of a call's repeatable members.
type heldMembers struct {
	sum [len(repeatable)][sha256.Size]byte
	has [len(repeatable)]bool
}

// note records the repeatable members obj (an update, or a permission
// request's toolCall; valid JSON) carries.
func (h *heldMembers) note(obj []byte) {
	for i, k := range repeatable {
		if v, ok := rawjson.TrustedGet(obj, k); ok {
			h.sum[i], h.has[i] = sha256.Sum256(v), true
		}
	}
}

// strip returns msg, a tool_call_update whose update u was read from, without
// the repeatable members whose value the client holds, and records the
// others; dropped is how many it left out.
func (h *heldMembers) strip(msg []byte, u *acp.ToolUpdate) (out []byte, dropped int, err error) {
	out = msg
	for i, k := range repeatable {
		v, ok := rawjson.TrustedGet(u.Raw, k)
		if !ok {
			continue
		}
		sum := sha256.Sum256(v)
		if h.has[i] && h.sum[i] == sum {
			if out, _, err = rawjson.Delete(out, toolcall.At(k)...); err != nil {
				return nil, 0, err
			}
			dropped++
			continue
		}
		h.sum[i], h.has[i] = sum, true
	}
	return out, dropped, nil
}

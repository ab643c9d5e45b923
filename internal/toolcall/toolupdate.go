package toolcall

import (
	"fmt"

	"github.com/acp-proxy/acp-proxy/acp"
)

// At is the path of a session/update's update (params.update) followed by
// keys, as a new slice for the rawjson editors.
func At(keys ...string) []string { return append([]string{"params", "update"}, keys...) }

// EditUpdate returns the message with its update (u.Raw, a subslice of
// msg) replaced by what edit makes of it. Editing the update alone spares
// walking the rest of the message again, which matters for snapshots of
// hundreds of kilobytes.
func EditUpdate(msg []byte, u *acp.ToolUpdate, edit func(upd []byte) ([]byte, error)) ([]byte, error) {
	off := cap(msg) - cap(u.Raw)
	if len(u.Raw) == 0 || off < 0 || off+len(u.Raw) > len(msg) || &msg[off] != &u.Raw[0] {
		return nil, fmt.Errorf("update is not part of the message")
	}
	upd, err := edit(u.Raw)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(msg)-len(u.Raw)+len(upd))
	out = append(out, msg[:off]...)
	out = append(out, upd...)
	return append(out, msg[off+len(u.Raw):]...), nil
}

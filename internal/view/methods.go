package view

import (
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// request takes a request or notification.
func (s *side) request(t time.Duration, m *acp.Message, rec *msgRec) {
	params, d := m.Params(), m.Dir
	switch m.Method() {
	case "initialize":
		if d == acp.ClientToAgent {
			s.clientInit = params
		}
	case "session/new", "session/load", "session/resume":
		if cwd, ok := rawjson.GetString(params, "cwd"); ok {
			s.cwd = cwd
			rec.Brief = brief(cwd)
		}
		if id, ok := rawjson.GetString(params, "sessionId"); ok {
			s.addSession(id)
		}
	case "session/prompt":
		prompt, _ := rawjson.Get(params, "prompt")
		text := blocksText(prompt)
		rec.Brief = brief(text)
		txt := makeText([]byte(text))
		s.event(Event{T: secs(t), Kind: "prompt", Dir: d.String(), Text: &txt})
	case "session/update":
		s.update(t, m, rec)
	case "session/request_permission":
		s.permission(t, m, rec)
	case "session/cancel":
		s.event(Event{T: secs(t), Kind: "stop", Dir: d.String(), Title: "session/cancel"})
	}
}

// permission takes a session/request_permission: its event, and its
// options, to name the one the answer picks.
func (s *side) permission(t time.Duration, m *acp.Message, rec *msgRec) {
	params := m.Params()
	call, _ := m.PermissionCall()
	ev := Event{T: secs(t), Kind: "permission", Dir: m.Dir.String(), Call: call.ID, Title: call.Title}
	opts := map[string]string{}
	list, _ := rawjson.Get(params, "options")
	_ = rawjson.Elements(list, func(_ int, o []byte) bool {
		name, _ := rawjson.GetString(o, "name")
		kind, _ := rawjson.GetString(o, "kind")
		oid, _ := rawjson.GetString(o, "optionId")
		ev.Options = append(ev.Options, name+" ("+kind+")")
		opts[oid] = name
		return true
	})
	rec.Brief = brief(call.Title)
	if c := s.calls[call.ID]; c != nil {
		rec.call = call.ID
	}
	event := s.event(ev)
	if req := s.requests.InFlight(m); req != nil {
		req.event, req.opts = event, opts
	}
}

// response takes the response to req.
func (s *side) response(t time.Duration, m *acp.Message, req *request, rec *msgRec) {
	d := m.Dir
	if e := m.Error(); e != nil {
		rec.Label = "error of " + req.Method
		msg, _ := rawjson.GetString(e, "message")
		code, _ := rawjson.Get(e, "code")
		rec.Brief = brief(string(code) + " " + msg)
		txt := makeText(elideJSON(e))
		s.event(Event{T: secs(t), Kind: "error", Dir: d.String(), Title: "error in answer to " + req.Method, Text: &txt})
		return
	}
	rec.Label = "result of " + req.Method
	res := m.Result()
	switch req.Method {
	case "initialize":
		if d == acp.AgentToClient {
			s.agentInit = res
		}
	case "session/new":
		if id, ok := rawjson.GetString(res, "sessionId"); ok {
			s.addSession(id)
			rec.Brief = id
		}
	case "session/prompt":
		stop, _ := rawjson.GetString(res, "stopReason")
		rec.Brief = stop
		s.event(Event{T: secs(t), Kind: "stop", Dir: d.String(), Title: "end of turn: " + stop})
	case "session/request_permission":
		s.permissionAnswer(t, res, req, rec)
	}
}

// permissionAnswer takes the answer to a permission request: the option
// chosen, by name, or the outcome ("cancelled").
func (s *side) permissionAnswer(t time.Duration, res []byte, req *request, rec *msgRec) {
	outcome, _ := rawjson.GetString(res, "outcome", "outcome")
	answer := outcome
	if oid, ok := rawjson.GetString(res, "outcome", "optionId"); ok {
		answer = oid
		if name := req.opts[oid]; name != "" {
			answer = name + " (" + oid + ")"
		}
	}
	rec.Brief = answer
	if req.event >= 0 && req.event < len(s.conv) {
		s.conv[req.event].Answer = answer
		s.conv[req.event].AnswerT = secs(t)
	}
}

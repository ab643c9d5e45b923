package doctor

import (
	"os"
	"strings"
)

// A client that authenticates before its first session (codecompanion
// sends authenticate whenever the agent advertises a method, with the
// adapter's auth_method, and gives up when the agent does not advertise
// that id) must name a method this agent advertises, and one that
// answers: measured against the real agents (docs/editors.md), an API-key
// method answers at once when its variable is set and fails when it is
// not; a sign-in method answers at once when the login is stored, and
// some wait for a browser or a code when it is not.

// AuthVar is one environment variable an env_var method reads.
type AuthVar struct{ Name string }

// SignIn is the authMethod doctor names for a client that authenticates,
// and why in a sentence; Method is "" when the agent advertises none (a
// client then sends no authenticate at all).
type SignIn struct {
	Method, Why string
}

// signIn picks the method among the agent's answer that fits this
// environment: the first API-key method whose variable is set; else the
// first method that signs in the agent's own way (not a key, not one the
// client must run in a terminal); else the first.
func (r *Report) signIn() SignIn {
	methods := r.Answer.AuthMethods
	if len(methods) == 0 {
		return SignIn{}
	}
	lookup := r.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var unset []string
	for _, m := range methods {
		vars := methodVars(m, r.Agent.AuthKeys)
		for _, v := range vars {
			if val, ok := lookup(v); ok && val != "" {
				return SignIn{m.ID, v + " is set here, and " + m.ID + " reads it; the editor must see it too " +
					"(a Neovim started from this shell does)."}
			}
		}
		if len(vars) > 0 {
			unset = append(unset, m.ID+" ("+strings.Join(vars, " or ")+")")
		}
	}
	pick := methods[0]
	for _, m := range methods {
		if len(methodVars(m, r.Agent.AuthKeys)) == 0 && m.Type != "terminal" && m.Type != "env_var" {
			pick = m
			break
		}
	}
	if vars := methodVars(pick, r.Agent.AuthKeys); len(vars) > 0 {
		return SignIn{pick.ID, pick.ID + " reads " + strings.Join(vars, " or ") +
			", which is not set here: set it where the editor sees it."}
	}
	if pick.Type == "env_var" {
		return SignIn{pick.ID, pick.ID + " reads an environment variable its answer does not name (" +
			strings.TrimSpace(pick.Name+". "+pick.Description) + "): set it where the editor sees it."}
	}
	why := pick.ID + " signs in the agent's own way"
	if note := r.Agent.SignInNotes[pick.ID]; note != "" {
		why += ": " + note
	}
	why += "."
	if len(unset) > 0 {
		why += " No API key it reads is set here; to use one instead, set it where the editor sees it and name its method: " +
			strings.Join(unset, ", ") + "."
	}
	return SignIn{pick.ID, why}
}

// methodVars are the variables method m reads: those its answer names
// (type env_var), else those known for it (keys, by method id).
func methodVars(m AuthMethod, keys map[string][]string) []string {
	var vars []string
	for _, v := range m.Vars {
		if v.Name != "" {
			vars = append(vars, v.Name)
		}
	}
	if len(vars) == 0 {
		vars = keys[m.ID]
	}
	return vars
}

package doctor

import (
	"cmp"
	"os"
	"path/filepath"
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

// signIn picks the method among the agent's answer that starts a session
// in this environment: the first API-key method whose variable is set; else
// a method whose login is stored here; else, when the agent's own sign-in
// is one that waits for a login that is not stored (codex's ChatGPT, which
// starts no session then), its first API-key method, saying which variable
// to set and what the other needs; else the first method that signs in the
// agent's own way (not a key, not one the client must run in a terminal);
// else the first.
func (r *Report) signIn() SignIn {
	methods := r.Answer.AuthMethods
	if len(methods) == 0 {
		return SignIn{}
	}
	var unset []string
	var firstKey *AuthMethod
	for i, m := range methods {
		vars := methodVars(m, r.Agent.AuthKeys)
		for _, v := range vars {
			if val, ok := r.lookupEnv(v); ok && val != "" {
				return SignIn{m.ID, v + " is set here, and " + m.ID + " reads it; the editor must see it too " +
					"(a Neovim started from this shell does)."}
			}
		}
		if len(vars) > 0 {
			unset = append(unset, m.ID+" ("+strings.Join(vars, " or ")+")")
			if firstKey == nil {
				firstKey = &methods[i]
			}
		}
	}
	for _, m := range methods {
		if path := r.storedLogin(m.ID); path != "" {
			return SignIn{m.ID, "a login is stored here (" + path + "), and " + m.ID + " uses it: it answers authenticate at once."}
		}
	}
	pick := methods[0]
	for _, m := range methods {
		if len(methodVars(m, r.Agent.AuthKeys)) == 0 && m.Type != "terminal" && m.Type != "env_var" {
			pick = m
			break
		}
	}
	if firstKey != nil && len(r.Agent.Logins[pick.ID]) > 0 {
		return SignIn{firstKey.ID, r.noWayYet(*firstKey, pick)}
	}
	return SignIn{pick.ID, r.ownWay(pick, unset)}
}

// noWayYet is why key is named when neither it nor login can start a
// session yet: no key is set, and login's is not stored.
func (r *Report) noWayYet(key, login AuthMethod) string {
	vars := strings.Join(methodVars(key, r.Agent.AuthKeys), " or ")
	where := ""
	if p := r.loginPath(login.ID); p != "" {
		where = " (" + p + ")"
	}
	why := "No method starts a session here yet: no API key it reads is set, and no login is stored for " +
		login.ID + where + ". With " + vars + " set where the editor sees it, " + key.ID +
		" (below) answers at once. " + login.ID + " works instead once " +
		cmp.Or(r.Agent.LoginCommand, "the agent's own sign-in") + " has stored a login"
	if note := r.Agent.SignInNotes[login.ID]; note != "" {
		why += ": " + note
	}
	return why + "."
}

// ownWay is why pick, a method that signs in the agent's own way (or the
// first the agent advertises), is named; unset are the API-key methods
// whose variables are not set.
func (r *Report) ownWay(pick AuthMethod, unset []string) string {
	if vars := methodVars(pick, r.Agent.AuthKeys); len(vars) > 0 {
		return pick.ID + " reads " + strings.Join(vars, " or ") +
			", which is not set here: set it where the editor sees it."
	}
	if pick.Type == "env_var" {
		return pick.ID + " reads an environment variable its answer does not name (" +
			strings.TrimSpace(pick.Name+". "+pick.Description) + "): set it where the editor sees it."
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
	return why
}

func (r *Report) lookupEnv(name string) (string, bool) {
	if r.LookupEnv != nil {
		return r.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

// loginPath is the file where the agent keeps a login for method (its
// Logins: the first whose variable is set, "$VAR/…", else "~/…" in HOME);
// "" when it keeps none doctor knows.
func (r *Report) loginPath(method string) string {
	for _, p := range r.Agent.Logins[method] {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home, ok := r.lookupEnv("HOME"); ok && home != "" {
				return filepath.Join(home, rest)
			}
			continue
		}
		name, rest, _ := strings.Cut(strings.TrimPrefix(p, "$"), "/")
		if dir, ok := r.lookupEnv(name); ok && dir != "" {
			return filepath.Join(dir, rest)
		}
	}
	return ""
}

// storedLogin is the file of a login stored for method, "" when none is.
func (r *Report) storedLogin(method string) string {
	p := r.loginPath(method)
	if p == "" {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
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

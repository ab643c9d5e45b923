package doctor

import (
	"fmt"
	"strings"
)

// signInCommands say how each registry agent that refused a session until
// its user signs in (measured offline, with an empty HOME) is signed in, by
// registry id: read in each one's own --help (auggie 0.36.0, grok 1.0.41,
// qodercli 1.1.52, copilot 1.0.102, droid 0.215.0). A proven release's
// Agent.SignInHow says it for its own. grok's XAI_API_KEY: with it set,
// grok 1.0.41 started a session with no sign-in (e2e:
// TestDoctorOnGrokWithAnAPIKeyStartsASession).
var signInCommands = map[string]string{
	"auggie": "run `auggie login` in a terminal, or set AUGMENT_SESSION_AUTH (the JSON of a session, " +
		"as ~/.augment/session.json holds it) where the editor sees it",
	"grok-build":         "run `grok login` in a terminal, or set XAI_API_KEY (an xAI API key) where the editor sees it",
	"qoder":              "run `qodercli login` in a terminal",
	"github-copilot-cli": "run `copilot login` in a terminal, or set COPILOT_GITHUB_TOKEN, GH_TOKEN or GITHUB_TOKEN (a token with the Copilot Requests permission) where the editor sees it",
	"factory-droid":      "set FACTORY_API_KEY (an API key from Factory's settings) where the editor sees it, or run `droid` in a terminal and sign in",
}

// sessionLine says what the agent answered to session/new in the temporary
// directory: whether it works for this user as things are.
func (r *Report) sessionLine() string {
	s := r.Answer.Session
	switch {
	case s == nil:
		return "not tried"
	case s.ID != "":
		return "session/new started one (" + s.ID + "): an editor that starts it as things are gets a session"
	case s.AuthRequired():
		return "refused: it needs a sign-in first (" + s.Refused.String() + "). " + r.signInAdvice()
	case s.Refused != nil:
		return "refused: " + s.Refused.String() + "; an editor gets the same answer"
	}
	return "no session: " + s.NoAnswer
}

// works reports whether the agent started a session for doctor.
func (r *Report) works() bool { return r.Answer.Session != nil && r.Answer.Session.ID != "" }

// signInAdvice is how to sign the agent in: the way its registry entry is
// known to sign in, then the methods it advertises.
func (r *Report) signInAdvice() string {
	var ways []string
	how := r.Agent.SignInHow
	if how == "" && r.Agent.Registry != nil {
		how = signInCommands[r.Agent.Registry.ID]
	}
	if how != "" {
		ways = append(ways, how)
	} else {
		for _, m := range r.Answer.AuthMethods {
			ways = append(ways, methodAdvice(m, r.Agent.AuthKeys))
		}
	}
	if len(ways) == 0 {
		ways = append(ways, "it advertises no sign-in method, so no editor can sign it in: sign in its own way "+
			"(its documentation says how) before an editor starts it")
	}
	return "To sign in: " + strings.Join(ways, "; or ") + "; then run doctor again."
}

// methodAdvice says what an advertised sign-in method asks of the user.
func methodAdvice(m AuthMethod, keys map[string][]string) string {
	label := strings.TrimSpace(m.ID + " (" + strings.TrimSuffix(strings.TrimSpace(m.Name), ".") + ")")
	label = strings.TrimSuffix(label, " ()")
	switch vars := methodVars(m, keys); {
	case len(vars) > 0:
		return fmt.Sprintf("set %s where the editor sees it, and have the editor authenticate with %s",
			strings.Join(vars, " or "), label)
	case m.Type == "terminal":
		return fmt.Sprintf("%s runs the agent in a terminal to sign in: an editor that offers terminal sign-in "+
			"(Zed) does it; else run it yourself: %s", label, strings.Join(append([]string{"the agent's command"}, m.Args...), " "))
	}
	return "an editor that authenticates with " + label + " signs it in the agent's own way"
}

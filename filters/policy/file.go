package policy

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// Action is what a rule decides. The zero value is Ask: without a rule that
// matches, a call goes to the user as it would without a policy.
type Action int

const (
	Ask   Action = iota // forward the request unchanged: the user decides
	Allow               // answer the agent's allow-once option for the user
	Deny                // answer the agent's reject-once option, and tell the user which rule
	Stop                // deny, and cancel the turn (session/cancel)
)

// actionNames are the words a policy file writes its actions with.
var actionNames = map[string]Action{"allow": Allow, "ask": Ask, "deny": Deny, "stop": Stop}

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	case Stop:
		return "stop"
	}
	return "ask"
}

// Tool is what a rule is about: the tool names of Claude Code's permission rules.
type Tool int

const (
	Bash     Tool = iota + 1 // commands: kind execute, terminal/create
	Edit                     // files written: kinds edit, delete, move, fs/write_text_file, a command's writes
	Read                     // files read: kinds read, search, fs/read_text_file
	WebFetch                 // kind fetch
)

// toolNames are the tool names a rule may use; Write is Edit, as in Claude Code.
var toolNames = map[string]Tool{"Bash": Bash, "Edit": Edit, "Write": Edit, "Read": Read, "WebFetch": WebFetch}

func (t Tool) String() string {
	switch t {
	case Bash:
		return "Bash"
	case Edit:
		return "Edit"
	case Read:
		return "Read"
	}
	return "WebFetch"
}

// Rule is one line of a policy file.
type Rule struct {
	Line   int    // 1-based line in the file
	Text   string // the line as written, trimmed: what a note to the user quotes
	Action Action
	Agent  string // a glob on the agent's name (agent=…), "" for every agent
	Tool   Tool
	// Any: the rule names the tool alone (Bash, Edit(**)…): every call of the tool.
	Any     bool
	command commandPattern // Bash
	path    pathPattern    // Edit, Read
	domain  string         // WebFetch(domain:…)
}

// Policy is a parsed policy file.
type Policy struct {
	Name  string // the file's name, for messages
	Rules []Rule
}

// ParseError is a line of a policy file that does not parse.
type ParseError struct {
	File string
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

// Load reads and parses the policy file at name.
func Load(name string) (*Policy, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	defer f.Close()
	return Parse(f, name)
}

// maxLineBytes bounds one line of a policy file.
const maxLineBytes = 64 << 10

// Parse reads a policy: one rule per line, `ACTION [agent=NAME] RULE`, blank lines and lines
// starting with # ignored (docs/policy.md). The first line that does not parse is the error,
// with its number and why.
func Parse(r io.Reader, name string) (*Policy, error) {
	p := &Policy{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rule, err := parseRule(line)
		if err != nil {
			return nil, &ParseError{File: name, Line: n, Err: err}
		}
		rule.Line = n
		p.Rules = append(p.Rules, rule)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Line: n + 1, Err: err}
	}
	return p, nil
}

// parseRule parses one non-blank, non-comment line.
func parseRule(line string) (Rule, error) {
	word, rest := cutSpace(line)
	act, ok := actionNames[word]
	if !ok {
		return Rule{}, fmt.Errorf("%q is not an action (allow, ask, deny or stop)", word)
	}
	rule := Rule{Text: line, Action: act}
	if strings.HasPrefix(rest, "agent=") {
		word, rest = cutSpace(rest)
		rule.Agent = strings.TrimPrefix(word, "agent=")
		if _, err := path.Match(rule.Agent, ""); err != nil || rule.Agent == "" {
			return Rule{}, fmt.Errorf("agent=%q is not a name or glob", rule.Agent)
		}
	}
	if rest == "" {
		return Rule{}, fmt.Errorf("%s what? (a rule such as Bash(npm test) or Edit(src/**))", word)
	}
	return rule, rule.parseTool(rest)
}

// cutSpace splits s at its first run of blanks.
func cutSpace(s string) (word, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}

// parseTool parses `Tool` or `Tool(spec)` into r.
func (r *Rule) parseTool(s string) error {
	name, spec, hasSpec := strings.Cut(s, "(")
	tool, ok := toolNames[name]
	if !ok {
		return fmt.Errorf("%q is not a tool (Bash, Edit, Write, Read or WebFetch)", name)
	}
	r.Tool = tool
	if !hasSpec {
		r.Any = true
		return nil
	}
	if !strings.HasSuffix(spec, ")") {
		return fmt.Errorf("%s( is not closed by a ) at the end of the line", name)
	}
	spec = strings.TrimSuffix(spec, ")")
	switch tool {
	case Bash:
		if strings.TrimSpace(spec) == "*" || strings.TrimSpace(spec) == ":*" {
			r.Any = true
			return nil
		}
		cp, err := parseCommandPattern(spec)
		r.command = cp
		return err
	case Edit, Read:
		pp, err := parsePathPattern(spec)
		r.path, r.Any = pp, pp.any
		return err
	}
	domain, ok := strings.CutPrefix(spec, "domain:")
	if !ok || domain == "" || strings.ContainsAny(domain, "/ ") {
		return fmt.Errorf("WebFetch(%s): want WebFetch(domain:HOST)", spec)
	}
	r.domain = strings.ToLower(domain)
	return nil
}

// appliesTo reports whether the rule is for the agent named agent.
func (r *Rule) appliesTo(agent string) bool {
	if r.Agent == "" {
		return true
	}
	name := strings.ToLower(agent)
	glob := strings.ToLower(r.Agent)
	if ok, _ := path.Match(glob, name); ok {
		return true
	}
	ok, _ := path.Match(glob, name[strings.LastIndexByte(name, '/')+1:])
	return ok
}

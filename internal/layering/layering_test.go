package layering

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/acp-proxy/acp-proxy/"

// A rule says what the packages matching scope may (mayUse) or must not
// (mustNotUse) depend on, directly or not, among this module's packages.
// Patterns are module-relative; "x/..." is x and everything under it.
type rule struct {
	says       string
	scope      []string
	mayUse     []string // if set: every module dependency matches one of these
	mustNotUse []string
}

// theProxyParts are the parts of the relay that live under internal/ because
// they are no embedder's business: the agent process and the traces.
var theProxyParts = []string{"internal/agentproc/...", "internal/trace/..."}

var rules = []rule{
	{
		says:   "acp is the leaf: it imports nothing of the module but internal/rawjson",
		scope:  []string{"acp"},
		mayUse: []string{"internal/rawjson"},
	},
	{
		says:       "the filters do not know the relay",
		scope:      []string{"filters/..."},
		mustNotUse: []string{"proxy/..."},
	},
	{
		says:       "the relay knows no filter family, only the framework",
		scope:      []string{"proxy/..."},
		mustNotUse: []string{"filters/output/...", "filters/shellpatch/...", "filters/policy/..."},
	},
	{
		says:  "the public packages use of internal/ only rawjson, toolcall, shellwrite, beneath and the relay's own parts",
		scope: []string{"acp/...", "capabilities/...", "filters/...", "proxy/..."},
		mayUse: append([]string{"acp/...", "capabilities/...", "filters/...", "proxy/...",
			"internal/rawjson/...", "internal/toolcall/...", "internal/shellwrite/...", "internal/beneath/..."}, theProxyParts...),
	},
	{
		says:   "the filter set knows the filters and nothing above them",
		scope:  []string{"internal/filterset"},
		mayUse: []string{"acp", "capabilities", "filters/...", "internal/rawjson", "internal/toolcall", "internal/shellwrite", "internal/beneath"},
	},
}

// platforms are those scripts/cross builds for; build-tagged files differ between them.
var platforms = []string{"linux", "darwin", "windows", "freebsd"}

func TestLayering(t *testing.T) {
	for _, goos := range platforms {
		deps := moduleDeps(t, goos)
		for _, r := range rules {
			t.Run(goos+"/"+r.says, func(t *testing.T) {
				broken, checked := r.check(deps)
				assert.Empty(t, broken)
				assert.NotZero(t, checked, "no package matches %q: the rule checks nothing", r.scope)
			})
		}
	}
}

// check returns the dependencies in deps that break r ("pkg depends on dep"), and how
// many packages r applies to.
func (r rule) check(deps map[string][]string) (broken []string, checked int) {
	for pkg, uses := range deps {
		if !matchesAny(pkg, r.scope) {
			continue
		}
		checked++
		for _, dep := range uses {
			if (r.mayUse != nil && !matchesAny(dep, r.mayUse)) || matchesAny(dep, r.mustNotUse) {
				broken = append(broken, pkg+" depends on "+dep)
			}
		}
	}
	slices.Sort(broken)
	return broken, checked
}

func TestRulesCatchAWrongArrow(t *testing.T) {
	deps := map[string][]string{
		"acp":            {"internal/rawjson", "capabilities"},
		"filters":        {"acp", "proxy"},
		"proxy":          {"filters", "filters/shellpatch", "internal/agentproc"},
		"filters/output": {"internal/view"},
	}
	var all []string
	for _, r := range rules {
		broken, _ := r.check(deps)
		all = append(all, broken...)
	}
	slices.Sort(all)
	assert.Equal(t, []string{
		"acp depends on capabilities",
		"filters depends on proxy",
		"filters/output depends on internal/view",
		"proxy depends on filters/shellpatch",
	}, slices.Compact(all))
}

// moduleDeps maps each package of the module (tests aside) to the module's
// packages it depends on, directly or not, when built for goos.
func moduleDeps(t *testing.T, goos string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
	out, err := cmd.Output()
	require.NoError(t, err, "go list for %s: %s", goos, stderrOf(err))
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		deps[pkg] = []string{}
		for _, dep := range fields[1:] {
			if rel, ok := strings.CutPrefix(dep, module); ok {
				deps[pkg] = append(deps[pkg], rel)
			}
		}
	}
	return deps
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

func matchesAny(pkg string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(pkg, p) })
}

func matches(pkg, pattern string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		pkg, pattern string
		want         bool
	}{
		{"filters", "filters/...", true},
		{"filters/output", "filters/...", true},
		{"filtersx", "filters/...", false},
		{"filters/output", "filters", false},
		{"acp", "acp", true},
	} {
		assert.Equal(t, tc.want, matches(tc.pkg, tc.pattern), "matches(%q, %q)", tc.pkg, tc.pattern)
	}
}

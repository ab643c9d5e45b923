package policy

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// fuzzPolicy is the rule set the generated commands are made around.
const fuzzPolicy = `allow Bash(npm test)
allow Bash(npm run test:*)
allow Bash(ls:*)
allow Bash(git status)
allow Bash(cat:*)
allow Bash(echo:*)
allow Bash(cp:*)
deny  Bash(git push:*)
deny  Edit(../**)
stop  Bash(rm -rf:*)
`

// piece is a command with what it provably does, known independently of the code under test:
// inside is true when its whole effect lies within fuzzPolicy's allow rules (run inside the
// session's directory, writing only there) in a form that can be proven; false for everything
// else (a denied command, an unprovable form, a write outside).
type piece struct {
	src    string
	inside bool
}

var pieces = []piece{
	{"npm test", true}, {"npm run test -- -u", true}, {"ls -la", true}, {"ls", true}, {"git status", true},
	{"echo hi > notes.txt", true}, {"echo hi >> sub/notes.txt", true}, {"cat README.md", true},
	{`"npm" test`, true}, {`n\pm test`, true}, {"cat <<'EOF' > f.txt\n$HOME $(git push)\nEOF", true},
	{"cp a.txt b.txt", true}, {"npm test 2>&1", true}, {"npm test > /dev/null", true}, {"cd ./sub && ls", true},
	{"git push", false}, {`g\it push`, false}, {"eval npm test", false}, {"$X test", false},
	{"npm test $(id)", false}, {"npm test `id`", false}, {"echo x > ../y", false}, {"echo x > out/y", false},
	{"echo x > out/../y", false}, {"echo x > $HOME/y", false}, {"echo x > ~/y", false}, {"ls ~", false},
	{"python3 -c 'import os'", false}, {"find . -delete", false}, {"xargs rm < f", false},
	{"npm test > /dev/sda", false}, {"X=1 npm test", false}, {"alias ls=rm; ls", false},
	{"f() { :; }; npm test", false}, {"cd sub && npm test", false}, {"cd .. && ls", false}, {"rm -rf x", false},
	{"cp a.txt ../b.txt", false}, {"cp a.txt out/b.txt", false}, {"env npm test", false}, {"command npm test", false},
	{"git -C .. status", false}, {"npm test &> log", false}, {"ls *", false}, {"ls {a,b}", false},
	{"for i in 1; do ls; done", false}, {"npm testing", false}, {"./npm test", false}, {"/usr/bin/npm test", false},
	{"cat <<EOF > f.txt\n$(git push)\nEOF", false}, {"ln -s .. up && echo x > up/y", false}, {"exec ls", false},
	{"sudo ls", false}, {"time npm test", true}, {"! ls", true}, {"ls &", true},
	{"ls > out/x", false}, {"ls >& ../x", false}, {"ls 3> ../x", false}, {"cat < out/x", true},
	{"git status --short", false}, {"git  status", true}, {`git st\atus`, true}, {"npm run test", true},
	{"npm run", false}, {"ls; cd ./sub; ls > x", true}, {"cd ./sub && echo x > ../x", true},
	{"cd ./sub && echo x > ../../x", false}, {"echo x > sub/../../x", false}, {"echo x > ./sub/./y", true},
	{"cat <<EOF > sub/f\nplain text\nEOF", true}, {"echo x >| f", true}, {"echo x > /dev/null", true},
	{"echo x > /dev/tcp/127.0.0.1/9", false}, {"echo x > /tmp/x", false}, {"cp -t .. a.txt", false},
	{"cp --target-directory=out a.txt", false}, {"ls 'a b' \"c d\"", true}, {"ls $'x'", false},
}

// joiners put two scripts together; each runs both (or may), so the whole is inside only when
// both parts are.
var joiners = []string{"; ", " && ", " || ", " | ", "\n"}

// generate makes a script from pieces: joined, grouped, wrapped in a shell, with a word quoted.
func generate(r *rand.Rand, depth int) (string, bool) {
	p := pieces[r.IntN(len(pieces))]
	src, inside := p.src, p.inside
	if depth > 2 {
		return src, inside
	}
	switch r.IntN(6) {
	case 0:
		other, ok := generate(r, depth+1)
		return join(r, src, other), inside && ok
	case 1:
		return "( " + src + " )", inside
	case 2:
		return "{ " + src + "; }", inside
	case 3:
		if strings.Contains(src, "'") || strings.Contains(src, "\n") {
			return src, inside
		}
		shell := []string{"bash -c", "sh -c", "bash -lc"}[r.IntN(3)]
		return shell + " '" + src + "'", inside
	case 4:
		other, ok := generate(r, depth+1)
		return join(r, other, src), inside && ok
	}
	return src, inside
}

// join joins two scripts with a random joiner; after a here-document only a newline, since
// text after its terminator on the same line would be part of its body (the policy reads that
// right, but a piece's label would no longer say what the script does).
func join(r *rand.Rand, left, right string) string {
	if strings.Contains(left, "<<") {
		return left + "\n" + right
	}
	return left + joiners[r.IntN(len(joiners))] + right
}

// TestGeneratedCommandsFailClosed: of thousands of commands generated around the rule set, the
// policy allows only those whose whole effect is known to lie within the rules, and it does
// allow some of those (so that the property is not kept by asking everything).
func TestGeneratedCommandsFailClosed(t *testing.T) {
	p := mustParse(t, fuzzPolicy)
	cwd := session(t)
	r := rand.New(rand.NewPCG(1, 2))
	allowed, insides := 0, 0
	for range 4000 {
		src, inside := generate(r, 0)
		d := p.Decide(Call{Tool: Bash, Cwd: cwd, Script: src})
		if inside {
			insides++
		}
		if d.Action == Allow {
			allowed++
			require.True(t, inside, "allowed a command whose effect is not within the rules:\n%s\n%s", src, d)
		}
	}
	assert.Greater(t, allowed, insides/3, "most commands within the rules are proven so (%d of %d)", allowed, insides)
}

// FuzzDecide: for any script, a decision is taken, and an allow holds what an allow must: the
// script parses, runs no expansion, substitution, function or compound the proxy cannot read,
// and every command it starts is cd or a program an allow rule names, as written.
func FuzzDecide(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		src, _ := generate(r, 0)
		f.Add(src)
	}
	for _, p := range pieces {
		f.Add(p.src)
	}
	pol := mustParse(f, fuzzPolicy)
	cwd := session(f)
	f.Fuzz(func(t *testing.T, src string) {
		d := pol.Decide(Call{Tool: Bash, Cwd: cwd, Script: src})
		if d.Action != Allow {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		require.NoError(t, err, "allowed a script bash does not parse: %q", src)
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Redirect:
				if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc {
					return !isQuoted(n.Word) // a quoted body is data; an unquoted one is read as the shell reads it
				}
			case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.FuncDecl,
				*syntax.ForClause, *syntax.WhileClause, *syntax.IfClause, *syntax.CaseClause, *syntax.DeclClause:
				t.Fatalf("allowed %q, which holds a %T: %s", src, n, d)
			case *syntax.CallExpr:
				if len(n.Assigns) > 0 {
					t.Fatalf("allowed %q, which assigns a variable: %s", src, d)
				}
				name, ok := literalWord(n.Args[0])
				require.True(t, ok, "allowed %q, whose command name is not literal", src)
				named := map[string]bool{"npm": true, "ls": true, "git": true, "cat": true, "echo": true, "cp": true,
					"cd": true, "bash": true, "sh": true}
				assert.True(t, named[name] && filepath.Base(name) == name, "allowed %q, which runs %q: %s", src, name, d)
			}
			return true
		})
	})
}

// isQuoted reports a here-document delimiter with a quote: its body is data.
func isQuoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return true
		}
	}
	return false
}

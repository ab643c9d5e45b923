package shellpatch

import "testing"

// Claude Code 0.23.1 rebuilds a command from shell-quote's tokens only when that tokeniser finds a
// | operator and nothing before it sends the text to be single-quoted whole (cli.js, g_q).
func TestClaudeRetokenises(t *testing.T) {
	for script, want := range map[string]bool{
		"ls | head":                        true,
		"echo hi >| f":                     true, // shell-quote reads >| as > and |
		"ls \\\n| head":                    true, // the continuation is joined first
		"echo x > f && ls | head":          true,
		`echo "a > b && c | d" > gt.txt`:   false, // quoted: no operator
		"echo 'a|b' > f":                   false,
		`echo a\|b > f`:                    false,
		"true || echo x > f":               false,
		"ls |& cat":                        false,
		"echo $(ls | head) > f":            false, // $( : single-quoted whole
		"echo `ls | head` > f":             false,
		"echo $HOME | cat":                 false,
		"echo ${x} | cat":                  false,
		"for i in a; do echo $i; done | x": false, // a keyword
		"ls | head\nls":                    false, // a newline
		"sort < in.txt | head":             false, // an input redirect: quoted by shell-quote, not re-tokenised
		"echo x > f":                       false,
	} {
		if got := claudeRetokenises(script); got != want {
			t.Errorf("claudeRetokenises(%q) = %v, want %v", script, got, want)
		}
	}
}

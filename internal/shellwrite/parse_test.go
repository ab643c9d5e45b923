package shellwrite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseCase is one row of the spec: a script and the file it writes, or why it is rejected.
type parseCase struct {
	script  string
	path    string   // accepted: where the file lands, relative to cwd
	content string   // accepted: its bytes
	reason  string   // rejected: part of the error
	dirs    []string // accepted: directories the shells need besides the target's (for cd)
}

// writes is an accepted row. @CWD@ in script and path stands for the working directory.
func writes(script, path, content string) parseCase {
	return parseCase{script: script, path: path, content: content}
}

// rejects is a rejected row.
func rejects(script, reason string) parseCase {
	return parseCase{script: script, reason: reason}
}

// needing adds directories that must exist for the shells to run the row.
func (c parseCase) needing(dirs ...string) parseCase {
	c.dirs = dirs
	return c
}

func (c parseCase) accepted() bool { return c.reason == "" }

// scriptIn returns the row's script for working directory cwd.
func (c parseCase) scriptIn(cwd string) string { return strings.ReplaceAll(c.script, "@CWD@", cwd) }

// lines joins its arguments into a script, one line each.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

var parseCases = []parseCase{
	// cat with a here-document. Quoted delimiter: the body is verbatim.
	writes(lines("cat <<'EOF' > notes.md", "# Notes", "", "Hello $USER `id` $(date) \\$ \\\\", "EOF"),
		"notes.md", "# Notes\n\nHello $USER `id` $(date) \\$ \\\\\n"),
	writes(lines(`cat <<"EOF" > a.txt`, `${HOME} \x`, "EOF"), "a.txt", "${HOME} \\x\n"),
	writes(lines("cat <<'END_OF_FILE' > a.txt", "EOF", "END_OF_FILE"), "a.txt", "EOF\n"),
	writes(lines("cat <<'EOF' > a.txt", "EOF ", "  EOF", "\tEOF", "EOFX", "xEOF", "EOF"), "a.txt", "EOF \n  EOF\n\tEOF\nEOFX\nxEOF\n"),
	writes(lines("cat <<'EOF' > script.sh", "#!/bin/sh", "# a comment in the body", "echo hi; exit 1", "EOF"),
		"script.sh", "#!/bin/sh\n# a comment in the body\necho hi; exit 1\n"),
	writes(lines("cat <<'EOF' > a.txt", "", "", "middle", "", "EOF"), "a.txt", "\n\nmiddle\n\n"),
	writes(lines("cat <<'EOF' > a.txt", "a line\\", "next line", "EOF"), "a.txt", "a line\\\nnext line\n"),
	writes("cat <<'EOF' > a.txt\nno newline after the delimiter\nEOF", "a.txt", "no newline after the delimiter\n"),
	writes(lines("cat <<'EOF' > a.txt", "EOF"), "a.txt", ""),
	writes("cat <<EOF > empty.txt\nEOF", "empty.txt", ""),
	writes(lines("cat <<'EOF' > naïve.md", "héllo ✓ 日本語", "EOF"), "naïve.md", "héllo ✓ 日本語\n"),
	// Unquoted delimiter: \$ \` \\ and \<newline> are processed, other backslashes stay.
	writes(lines("cat <<EOF > a.txt", "plain text, it's \"quoted\"", "EOF"), "a.txt", "plain text, it's \"quoted\"\n"),
	writes(lines("cat <<EOF > a.txt", "cost \\$5, tick \\`, slash \\\\, other \\x \\\" \\'", "EOF"),
		"a.txt", "cost $5, tick `, slash \\, other \\x \\\" \\'\n"),
	writes(lines("cat <<EOF > a.txt", "ab\\", "cd", "EOF"), "a.txt", "abcd\n"),
	writes(lines("cat <<EOF > a.txt", "a\\\\", "b", "EOF"), "a.txt", "a\\\nb\n"),
	writes(lines("cat <<EOF > a.txt", "\\EOF", "E\\OF", "EOF"), "a.txt", "\\EOF\nE\\OF\n"),
	// <<- strips leading tabs, from the delimiter line too.
	writes(lines("cat <<-EOF > a.txt", "\tone", "\t\ttwo", "  three", " \tfour", "\tEOF"), "a.txt", "one\ntwo\n  three\n \tfour\n"),
	writes(lines("cat <<-'END' > a.txt", "\t$x", "\t\t", "\t\tEND"), "a.txt", "$x\n\n"),
	writes(lines("cat <<-EOF > a.txt", "\t\\$ok", "\t\\\\", "\tEOF"), "a.txt", "$ok\n\\\n"),
	writes(lines("cat <<-EOF > a.txt", "\ta\\", "b", "EOF"), "a.txt", "ab\n"),
	// Redirect spellings and positions.
	writes(lines("cat > a.txt <<'EOF'", "x", "EOF"), "a.txt", "x\n"),
	writes(lines("cat<<'EOF'>a.txt", "x", "EOF"), "a.txt", "x\n"),
	writes(lines("cat <<'EOF' >| a.txt", "x", "EOF"), "a.txt", "x\n"),
	writes(lines("cat <<'EOF' 1> a.txt", "x", "EOF"), "a.txt", "x\n"),
	writes(lines("> a.txt cat <<'EOF'", "x", "EOF"), "a.txt", "x\n"),
	writes(lines("", "  cat <<'EOF' > a.txt", "x", "EOF", "", ""), "a.txt", "x\n"),
	writes(lines("cat <<'EOF' \\", "> a.txt", "x", "EOF"), "a.txt", "x\n"),
	// Paths and cd.
	writes(lines("cat <<'EOF' > @CWD@/abs.txt", "x", "EOF"), "abs.txt", "x\n"),
	writes(lines("cd sub && cat <<'EOF' > f.txt", "x", "EOF"), "sub/f.txt", "x\n"),
	writes(lines("cd sub &&", "cat <<'EOF' > f.txt", "x", "EOF"), "sub/f.txt", "x\n"),
	writes("cd 'my dir' && echo hi > \"out file.txt\"", "my dir/out file.txt", "hi\n"),
	writes("cd @CWD@/sub && echo hi > f", "sub/f", "hi\n"),
	writes("cd / && echo hi > @CWD@/f", "f", "hi\n"),
	writes("cd sub && echo hi > @CWD@/f", "f", "hi\n").needing("sub"),
	writes("cd ./sub/ && echo hi > ./deeper//f.txt", "sub/deeper/f.txt", "hi\n"),
	writes("echo hi > sub/./f", "sub/f", "hi\n"),
	writes("echo hi > -", "-", "hi\n"),
	writes("echo hi > 文件.txt", "文件.txt", "hi\n"),
	writes("echo hi > a\\ b", "a b", "hi\n"),
	// echo: arguments joined by spaces, and a newline.
	writes("echo hello > f", "f", "hello\n"),
	writes("echo > f", "f", "\n"),
	writes("echo '' > f", "f", "\n"),
	writes("echo '' '' > f", "f", " \n"),
	writes(`echo 'a  b' "c" d > f`, "f", "a  b c d\n"),
	writes(`echo "it's" 'say "hi"' > f`, "f", "it's say \"hi\"\n"),
	writes(`echo a\ b \'c\' > f`, "f", "a b 'c'\n"),
	writes(`echo "x=1" y=2 a,b:c+d@e%f > f`, "f", "x=1 y=2 a,b:c+d@e%f\n"),
	writes(`echo 'a*b?[c]{d,e}~ $HOME #x' > f`, "f", "a*b?[c]{d,e}~ $HOME #x\n"),
	writes(`echo "Hello world!" > f`, "f", "Hello world!\n"),
	writes(`echo "tab	inside" > f`, "f", "tab\tinside\n"),
	writes("echo 'two\nlines' > f", "f", "two\nlines\n"),
	writes("echo ab\\\ncd \"ef\\\ngh\" > f", "f", "abcd efgh\n"),
	writes("echo hi -n > f", "f", "hi -n\n"),
	writes("> f echo hi", "f", "hi\n"),
	writes("echo hi >| f", "f", "hi\n"),
	writes("echo hi 1>f", "f", "hi\n"),
	writes("echo hi 1>| f", "f", "hi\n"),
	writes(`echo a"b"'c'\d"" > f`, "f", "abcd\n"),
	writes("echo hi > f there", "f", "hi there\n"),
	writes("echo 中文 > f", "f", "中文\n"),
	// printf: \\ \n \t \r, %% %s %b, the format repeats while arguments remain.
	writes(`printf 'hello\n' > f`, "f", "hello\n"),
	writes(`printf 'no newline' > f`, "f", "no newline"),
	writes(`printf '' > f`, "f", ""),
	writes(`printf '%s' > f`, "f", ""),
	writes(`printf 'a\tb\r\n\\' > f`, "f", "a\tb\r\n\\"),
	writes(`printf '100%%\n' > f`, "f", "100%\n"),
	writes(`printf '%s\n' a b c > f`, "f", "a\nb\nc\n"),
	writes(`printf '%s=%s\n' k1 v1 k2 > f`, "f", "k1=v1\nk2=\n"),
	writes(`printf '%b' 'a\tb\\c\n' > f`, "f", "a\tb\\c\n"),
	writes(`printf '%s %b|' x 'y\n' z > f`, "f", "x y\n|z |"),
	writes(`printf '%s\n' 'back\slash \n kept' > f`, "f", "back\\slash \\n kept\n"),
	writes(`printf '%s\n' -n --version > f`, "f", "-n\n--version\n"),
	writes(`printf "%s\n" "double \$ \" \\ quoted" > f`, "f", "double $ \" \\ quoted\n"),
	writes(`printf '✓ %s\n' done > f`, "f", "✓ done\n"),
	writes(`printf '%s\n' "a\b \$ \`+"`"+` \" \\ end" > f`, "f", "a\\b $ ` \" \\ end\n"),
	writes("printf '%s\\n' \"multi\nline\" > f", "f", "multi\nline\n"),

	// Shape: one simple command, optionally after one cd.
	rejects("echo a > f; echo b > g", "2 statements"),
	rejects("echo a > f;", "terminated by ';'"),
	rejects("echo a > f\necho b > g", "2 statements"),
	rejects("echo a > f || true", "operator ||"),
	rejects("echo hi | cat > f", "operator |"),
	rejects("echo hi > f &", "background"),
	rejects("! echo hi > f", "negated"),
	rejects("(echo hi > f)", "not a simple command"),
	rejects("{ echo hi; } > f", "not a simple command"),
	rejects("f() { echo hi > f; }", "not a simple command"),
	rejects("time echo hi > f", "not a simple command"),
	rejects("echo hi > f # note", "comment"),
	rejects("# note\necho hi > f", "comment"),
	rejects("echo hi > f\r", "carriage return"),
	rejects("echo hi\r > f", "carriage return"),
	rejects("echo hi > f\x00", "NUL"),
	rejects("echo \xff > f", "invalid UTF-8"),
	rejects("echo \"unterminated > f", "parse"),
	rejects("X=1 echo hi > f", "assignment"),
	rejects("cd - && echo hi > f", "option"),
	rejects("cd -P sub && echo hi > f", "cd with 2 arguments"),
	rejects("cd && echo hi > f", "cd with 0 arguments"),
	rejects("cd a && cd b && echo hi > f", "not a cd"),
	rejects("cd a > log && echo hi > f", "redirect on a compound command or cd"),
	rejects("cd .. && echo hi > f", "climbs above"),
	rejects("cd a/../.. && echo hi > f", "climbs above"),
	rejects("cd ../x && echo hi > f", "climbs above"),
	writes("cd a/.. && echo hi > f", "f", "hi\n").needing("a"),
	writes("cd a/b/../c && echo hi > f", "a/c/f", "hi\n").needing("a/b", "a/c"),
	writes("cd @CWD@/a/.. && echo hi > f", "f", "hi\n").needing("a"),
	// zsh reads +N and -N as directory stack entries, bash and dash as a directory and an option.
	rejects("cd +0 && echo hi > f", "directory stack"),
	rejects("cd +1 && echo hi > f", "directory stack"),
	rejects("cd -0 && echo hi > f", "option"),
	// zsh does not join a line continuation inside an operator or after a redirect's fd number.
	rejects("echo hi 1\\\n> f", "line continuation between a file descriptor"),
	rejects("echo hi >\\\n| f", "parse"),
	rejects("cd sub &\\\n& echo hi > f", "parse"),
	writes("echo hi \\\n1> f", "f", "hi\n"),
	writes("echo hi 1>\\\nf", "f", "hi\n"),
	rejects("cd '' && echo hi > f", "cd: empty directory"),
	rejects("cd $HOME && echo hi > f", "cd"),
	rejects("pushd a && echo hi > f", "not a cd"),
	rejects("echo hi > f && echo done", "before &&"),
	// Commands.
	rejects("tee f <<'EOF'\nx\nEOF\n", `command "tee"`),
	rejects("echo hi | tee f", "operator |"),
	rejects("sed -i s/a/b/ f", `command "sed"`),
	rejects("cat > f", "is not a recognised write"),
	rejects("cat in.txt > f", `command "cat"`),
	rejects("cat - <<'EOF' > f\nx\nEOF\n", "cat: arguments"),
	rejects("\\cat <<'EOF' > f\nx\nEOF\n", `command "\\cat"`),
	rejects("\"cat\" <<'EOF' > f\nx\nEOF\n", `command "\"cat\""`),
	rejects("command echo hi > f", `command "command"`),
	rejects("printf > f", "not a recognised write"),
	// Redirects.
	rejects("echo hi", "no output redirect"),
	rejects("> f", "redirect without a command"),
	rejects("cat <<'EOF' >> f\nx\nEOF\n", "redirect >>"),
	rejects("echo hi 2> f", "fd 2"),
	rejects("echo hi &> f", "redirect &>"),
	rejects("echo hi > f 2>&1", "redirect >&"),
	rejects("echo hi >&2", "redirect >&"),
	rejects("cat < in > f", "redirect <"),
	rejects("cat <<< hi > f", "redirect <<<"),
	rejects("echo hi > a > b", "more than one output redirect"),
	rejects("cat <<A <<B > f\na\nA\nb\nB\n", "more than one here-document"),
	rejects("cat 0<<'EOF' > f\nx\nEOF\n", "here-document on fd 0"),
	rejects("echo hi 01> f", "fd 01"),
	rejects("echo hi > f <<'EOF'\nx\nEOF\n", "echo: here-document"),
	// Words: literal only.
	rejects("echo $HOME > f", "ParamExp"),
	rejects("echo ${x} > f", "ParamExp"),
	rejects("echo \"$x\" > f", "inside double quotes"),
	rejects("echo \"a$\" > f", "expansion '$' inside double quotes"),
	rejects("echo $(date) > f", "CmdSubst"),
	rejects("echo `date` > f", "CmdSubst"),
	rejects("echo $((1+1)) > f", "ArithmExp"),
	rejects("echo $'a\\tb' > f", "$'…'"),
	rejects(`echo $"x" > f`, `$"…"`),
	rejects("echo * > f", "unquoted '*'"),
	rejects("echo a? > f", "unquoted '?'"),
	rejects("echo [ab] > f", "unquoted '['"),
	rejects("echo a]b > f", "unquoted ']'"),
	rejects("echo {a,b} > f", "unquoted '{'"),
	rejects("echo ~ > f", "unquoted '~'"),
	rejects("echo a=~/x > f", "unquoted '~'"),
	rejects("echo =ls > f", "starts with '='"),
	rejects("echo ''=0 > f", "starts with '='"),
	rejects("echo 'a''b' > f", "back to back"),
	rejects("echo 'it''s' > f", "back to back"),
	rejects("echo '''x' > f", "back to back"), // zsh: "0 not found" (found by FuzzParse with zsh)
	rejects(`echo ""=ls > f`, "starts with '='"),
	rejects("echo hi > ''=f", "starts with '='"),
	writes("echo '='ls \\=ls a=b > f", "f", "=ls =ls a=b\n"),
	rejects("echo <(true) > f", "ProcSubst"),
	rejects("echo @(a|b) > f", "ExtGlob"),
	rejects("echo a#b > f", "unquoted '#'"),
	rejects("echo a^b > f", "unquoted '^'"),
	rejects("echo hi! > f", "unquoted '!'"),
	// echo.
	rejects("echo -n hi > f", "starts with '-'"),
	rejects("echo -e 'a\\nb' > f", "starts with '-'"),
	rejects("echo -- hi > f", "starts with '-'"),
	rejects("echo - > f", "starts with '-'"),
	rejects("echo 'a\\nb' > f", "backslash"),
	rejects(`echo a\\b > f`, "backslash"),
	rejects(`echo "a\b" > f`, "backslash"),
	// printf.
	rejects("printf -v x hi > f", "looks like an option"),
	rejects("printf -- '%s' x > f", "looks like an option"),
	rejects(`printf '\x41' > f`, `escape \x`),
	rejects(`printf '\u00e9' > f`, `escape \u`),
	rejects(`printf '\101' > f`, `escape \1`),
	rejects(`printf '\0' > f`, `escape \0`),
	rejects(`printf 'a\cb' > f`, `escape \c`),
	rejects(`printf '\a' > f`, `escape \a`),
	rejects(`printf '\"' > f`, `escape \"`),
	rejects(`printf 'a\' > f`, "ends in a backslash"),
	rejects(`printf '%d\n' 5 > f`, "conversion %d"),
	rejects(`printf '%5s' x > f`, "conversion %5"),
	rejects(`printf '%-s' x > f`, "conversion %-"),
	rejects(`printf '%q' x > f`, "conversion %q"),
	rejects(`printf '100%' > f`, "ends in '%'"),
	rejects(`printf 'hi' extra > f`, "no conversion"),
	rejects(`printf '%%' extra > f`, "no conversion"),
	rejects(`printf '%b' 'a\cb' > f`, `escape \c`),
	rejects(`printf '%b' '\0101' > f`, `escape \0`),
	rejects(`printf '%b' 'a\' > f`, "ends in a backslash"),
	// Here-documents.
	rejects("cat <<\\EOF > f\nx\nEOF\n", "not a plain word"),
	rejects("cat <<E\"O\"F > f\nx\nEOF\n", "not a plain word"),
	rejects("cat <<'E'OF > f\nx\nEOF\n", "not a plain word"),
	rejects("cat <<EOF-1 > f\nx\nEOF-1\n", "not a plain word"),
	rejects("cat <<$'EOF' > f\nx\nEOF\n", "not a plain word"),
	rejects("cat <<EOF > f\nx\n", "parse"),
	rejects("cat <<EOF > f\nx\nEOFX", "parse"),
	rejects("cat <<EOF > f\n$HOME\nEOF\n", "expansion '$'"),
	rejects("cat <<EOF > f\n${x}\nEOF\n", "expansion '$'"),
	rejects("cat <<EOF > f\n$(date)\nEOF\n", "expansion '$'"),
	rejects("cat <<EOF > f\n`date`\nEOF\n", "expansion '`'"),
	rejects("cat <<EOF > f\nprice: 5$\nEOF\n", "expansion '$'"),
	rejects("cat <<'EOF' > f\nx\nEOF\necho more\n", "2 statements"),
	rejects("cat <<'EOF' > f\nx\r\nEOF\n", "carriage return"),
	rejects("cat <<EOF > f\n\\\x7f\nEOF\n", "control character"), // bash drops the DEL (found by FuzzParseShapes)
	rejects("echo a\x01b > f", "control character"),
	rejects("echo x > "+strings.Repeat("z", 256), "path component of 256 bytes is too long"), // ENAMETOOLONG (found by FuzzParse)
	rejects("echo x > /"+strings.Repeat("d/", 2048)+"f", "too long"),
	writes("echo x > "+strings.Repeat("z", 255), strings.Repeat("z", 255), "x\n"),
	rejects("cat>0<<'EOF'\nx\nEOF\n", "all digits"), // bash: syntax error near `0' (found by FuzzParse)
	rejects("echo x > 12", "all digits"),
	rejects("printf 'a\x1b[0m' > f", "control character"),
	// Line continuations in unquoted here-documents where bash and dash differ.
	rejects("cat <<EOF > f\nx\n\\\nEOF\nEOF\n", "continuation at the start of a line"),
	rejects("cat <<EOF > f\nEO\\\nF\nEOF\n", "delimiter made of a line continuation"),
	rejects("cat <<EOF > f\na\\\nEOF\nEOF\n", "continuation before the delimiter"),
	rejects("cat <<-EOF > f\n\t\\\n\tx\n\tEOF\n", "continuation at the start of a line"),
	rejects("cat <<-EOF > f\n\ta\\\n\tb\n\tEOF\n", "before a tab or backslash"),
	rejects("cat <<EOF > f\na\\\n\\\nb\nEOF\n", "before a tab or backslash"),
	// Targets.
	rejects("echo hi > dir/", "ends in '/'"),
	rejects("echo hi > ''", "empty path"),
	rejects("echo hi > .", "names a directory"),
	rejects("echo hi > a/..", "names a directory"),
	writes("echo hi > a/../f", "f", "hi\n").needing("a"),
	writes("printf 'clean\\n' > sub//./deeper/../clean.txt", "sub/clean.txt", "clean\n").needing("sub/deeper"),
	// A path must show in a title as what it is.
	rejects("echo hi > \u202egnp.exe", "control character or one invisible, blank or a look-alike: U+202E"),
	// Beyond format characters: blank letters and marks, variation selectors, other spaces,
	// look-alikes of '.' and '/'.
	rejects("echo hi > a\u034fb", "U+034F"),
	rejects("echo hi > a\ufe0fb", "U+FE0F"),
	rejects("echo hi > a\U000E0100b", "U+E0100"),
	rejects("echo hi > a\u17b4b", "U+17B4"),
	rejects("echo hi > a\u17b5b", "U+17B5"),
	rejects("echo hi > a\u3164b", "U+3164"),
	rejects("echo hi > a\u115fb", "U+115F"),
	rejects("echo hi > a\u1160b", "U+1160"),
	rejects("echo hi > a\uffa0b", "U+FFA0"),
	rejects("echo hi > a\u2800b", "U+2800"),
	rejects("echo hi > a\u00a0b", "U+00A0"),
	rejects("echo hi > a\u3000b", "U+3000"),
	rejects("echo hi > notes\u2024md", "U+2024"),
	rejects("echo hi > notes\uff0emd", "U+FF0E"),
	rejects("echo hi > sub\u2215f", "U+2215"),
	rejects("echo hi > a\ue000b", "U+E000"),
	writes("echo hi > café.md", "café.md", "hi\n"),
	writes("echo hi > cafe\u0301.md", "cafe\u0301.md", "hi\n"), // a combining accent shows
	writes("echo hi > 日本語.txt", "日本語.txt", "hi\n"),
	rejects("echo hi > a\u200bb", "U+200B"),
	rejects("echo hi > \ufeffa", "U+FEFF"),
	rejects("echo hi > a\u0085b", "U+0085"),
	rejects("echo hi > a\u2028b", "U+2028"),
	rejects("cd \u2066x && echo hi > f", "U+2066"),
	writes("echo \u202e\u200b > f", "f", "\u202e\u200b\n"), // content is shown in a diff, escaped by no one, but it is the truth
	// Here-document lines dash misreads: a prefix of the delimiter, then a non-ASCII character.
	rejects(lines("cat <<'EOF' > o", "Ełk", "EOF"), "dash drops a byte"),
	rejects(lines("cat <<EOF > o", "EOFé", "EOF"), "dash drops a byte"),
	rejects(lines("cat <<-EOF > o", "\tEO€", "\tEOF"), "dash drops a byte"),
	rejects(lines("cat <<EOF > o", "x\\", "E😀", "EOF"), "dash drops a byte"),
	writes(lines("cat <<'EOF' > o", "łk xEłk", "E-ł", "EOF"), "o", "łk xEłk\nE-ł\n"),
	writes(lines("cat <<'EOF' > o", "é€😀\u202e\u200b", "EOF"), "o", "é€😀\u202e\u200b\n"),
	// A script too long for one argument of a command line.
	rejects("echo "+strings.Repeat("x", MaxScriptBytes)+" > f", "too long for one argument"),
	rejects("echo "+strings.Repeat("''", MaxScriptBytes/8)+" > f", "too long for one argument"),
	writes("echo "+strings.Repeat("x", MaxScriptBytes-12)+" > f", "f", strings.Repeat("x", MaxScriptBytes-12)+"\n"),
	rejects("echo hi > /dev/tcp/localhost/80", "under /dev"),
	rejects("echo hi > /dev/null", "under /dev"),
	rejects("cd /dev && echo hi > stdout", "under /dev"),
	rejects("echo hi > \"$f\"", "inside double quotes"),
	rejects("echo hi > *.txt", "unquoted '*'"),
	rejects("echo hi > 'new\nline'", "control character"),
	rejects("echo hi > f\\", "ends in a backslash"),
}

// testCWD is the working directory of the pure tests; the shell tests use temporary ones.
const testCWD = "/home/dev/project"

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.script, func(t *testing.T) {
			script := tc.scriptIn(testCWD)
			w, err := Parse(script, testCWD)
			if !tc.accepted() {
				require.Error(t, err, "accepted, want rejection (%s); wrote %s: %q", tc.reason, w.Path, w.Content)
				require.Contains(t, err.Error(), tc.reason, "rejected for %q, want %q", err, tc.reason)
				require.Empty(t, w.Path, "rejected but returned %+v", w)
				require.Nil(t, w.Content, "rejected but returned %+v", w)
				return
			}
			require.NoError(t, err, "rejected")
			want := filepath.Join(testCWD, tc.path)
			assert.Equal(t, want, w.Path, "Path")
			assert.Equal(t, tc.content, string(w.Content), "Content")
		})
	}
}

// TestParseAgainstShells runs every accepted row in bash and dash: each must write exactly the
// file Parse predicts.
func TestParseAgainstShells(t *testing.T) {
	for _, tc := range parseCases {
		if !tc.accepted() {
			continue
		}
		for _, shell := range oracleShells {
			t.Run(shell+"/"+tc.script, func(t *testing.T) {
				t.Parallel()
				checkShellWrites(t, shell, parsed(tc.scriptIn), tc.dirs...)
			})
		}
	}
}

func TestParseCaseCounts(t *testing.T) {
	accepted := 0
	for _, tc := range parseCases {
		if tc.accepted() {
			accepted++
		}
	}
	rejected := len(parseCases) - accepted
	require.GreaterOrEqual(t, accepted, 45, "%d accepted and %d rejected rows, want at least 45 and 40", accepted, rejected)
	require.GreaterOrEqual(t, rejected, 40, "%d accepted and %d rejected rows, want at least 45 and 40", accepted, rejected)
}

func TestParseRelativeCWD(t *testing.T) {
	_, err := Parse("echo hi > f", "project")
	require.ErrorContains(t, err, "not absolute")
}

// TestLoginShellsWriteTheSame runs the accepted rows as codex does, in login shells (`bash -lc`,
// `zsh -lc`, codex's shell on macOS), with this machine's system login files and an empty home:
// they write what Parse predicts. A user's own login files are beyond any test (see the package
// documentation).
func TestLoginShellsWriteTheSame(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			sh := shellPath(t, shell)
			for _, tc := range parseCases {
				if !tc.accepted() || strings.Contains(tc.script, "@CWD@") {
					continue
				}
				cwd := shellDir(t)
				w, err := Parse(tc.script, cwd)
				require.NoError(t, err, "%q", tc.script)
				for _, d := range append(tc.dirs, strings.TrimPrefix(filepath.Dir(w.Path), cwd)) {
					require.NoError(t, os.MkdirAll(filepath.Join(cwd, d), 0o755))
				}
				run := runShellFlag(t, sh, "-lc", tc.script, cwd, "/usr/bin:/bin")
				want := map[string][]byte{w.Path: w.Content}
				if assert.NoError(t, run.err, "%s -lc %q", shell, tc.script) {
					assert.True(t, sameFiles(run.files, want), "%s -lc %q wrote\n%sParse says\n%s", shell, tc.script, describeFiles(run.files), describeFiles(want))
				}
			}
		})
	}
}

func TestDependsOnCwd(t *testing.T) {
	for script, want := range map[string]bool{
		"echo hi > f":                     true,
		"echo hi > /abs/f":                false,
		"cd sub && echo hi > f":           true,
		"cd sub && echo hi > /abs/f":      true, // the cd may fail where the shell is
		"cd /abs && echo hi > f":          false,
		"cd /abs && echo hi > /abs/g":     false,
		"cd ./sub/.. && echo hi > /abs/f": true,
	} {
		w, err := Parse(script, testCWD)
		require.NoError(t, err, "%q", script)
		got := w.DependsOnCwd()
		assert.Equal(t, want, got, "%q: DependsOnCwd() = %v, want %v", script, got, want)
	}
}

func TestSearchesCDPATH(t *testing.T) {
	for script, want := range map[string]bool{
		"echo hi > f":               false,
		"cd sub && echo hi > f":     true,
		"cd a/b && echo hi > f":     true,
		"cd ./sub && echo hi > f":   false,
		"cd /abs && echo hi > f":    false,
		"cd sub/.. && echo hi > f":  true,
		"cd ./a/.. && echo hi > f":  false,
		"cd .hidden && echo hi > f": true,
	} {
		w, err := Parse(script, testCWD)
		require.NoError(t, err, "%q", script)
		got := w.SearchesCDPATH()
		assert.Equal(t, want, got, "%q: SearchesCDPATH() = %v, want %v", script, got, want)
	}
}

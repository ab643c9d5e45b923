// Package shellwrite recognises shell commands that provably write files, and says which files and
// which bytes.
//
// Coding agents often write files with the shell instead of their edit tool, e.g.
//
//	cat <<'EOF' > notes.md
//	…
//	EOF
//
// An editor shows such a call as an opaque command. If the command provably truncates one file and
// writes known bytes to it, a proxy can show it as an edit with a diff instead. "Provably" is the
// point of this package: [Parse] accepts a script only if bash, dash and zsh all write the same
// bytes to the same path, whatever the environment variables, and [CheckTarget] says where that
// path is on disk (a target's '..' is resolved after symlinks, as the kernel does). The tests run
// every accepted form in real bash, dash and zsh (codex's shell on macOS). Every form the package
// is unsure of is rejected; a rejected command is shown as it was, which is always safe.
//
// What is accepted, in short:
//
//   - one simple command, optionally after one `cd DIR &&`;
//   - `cat` with one here-document, `printf FORMAT [ARG...]` or `echo [ARG...]`;
//   - exactly one output redirect `>`, `>|` or `1>`;
//   - every word literal after quote removal: no expansion, glob, brace, tilde or comment;
//   - only the printf escapes and conversions on which the shells agree (\\ \n \t \r, %% %s %b), and
//     echo arguments without backslashes or a leading '-';
//   - scripts of at most [MaxScriptBytes], and paths without invisible or control characters.
//
// Beyond that, the result describes the command, not the machine: login files (aliases, zsh
// options such as chase_links or rc_quotes), CDPATH and noclobber can still change what the agent's
// shell does, and the filesystem can change between [CheckTarget] and the command. The rewrite that
// uses this package is display-only. docs/shell-to-patch.md lists where the shells differ.
//
// [ParseScript] reads a whole script the same way: statements joined by newlines, ';' and '&&',
// comment lines, and besides the writes above `>>` appends, `tee [-a]` fed by a here-document,
// `sed -i`, `mkdir -p`, `touch` and any number of cds. It stops at the first statement whose
// effect it cannot know, and [Script.Edits] computes each file's text after the writes before it
// (`sed -i` by running GNU sed --sandbox on the text).
//
// [ScriptFromArgv] and [ScriptFromCommandLine] unwrap the `bash -lc SCRIPT` forms in which agents
// report their shell calls, and never unwrap PowerShell or cmd ([IsWindowsShell]). The package
// imports only the standard library, mvdan.cc/sh/v3/syntax and golang.org/x/sys/unix.
package shellwrite

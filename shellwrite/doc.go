// Package shellwrite recognises shell commands that provably write exactly one file, and says which
// file and which bytes.
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
// bytes to the same path, whatever the files on disk and whatever the environment variables. The
// tests run every accepted form in real bash and dash; zsh (codex's shell on macOS) is covered by
// the rules' reasoning only. Every form the package is unsure of is rejected; a rejected command is
// shown as it was, which is always safe.
//
// What is accepted, in short:
//
//   - one simple command, optionally after one `cd DIR &&`;
//   - `cat` with one here-document, `printf FORMAT [ARG...]` or `echo [ARG...]`;
//   - exactly one output redirect `>`, `>|` or `1>`;
//   - every word literal after quote removal: no expansion, glob, brace, tilde or comment;
//   - only the printf escapes and conversions on which the shells agree (\\ \n \t \r, %% %s %b), and
//     echo arguments without backslashes or a leading '-'.
//
// Beyond that, the result describes the command, not the machine: login profiles, aliases, CDPATH
// and noclobber can still change what the agent's shell does, and the filesystem can change between
// [CheckTarget] and the command. The rewrite that uses this package is display-only.
//
// [ScriptFromArgv] and [ScriptFromCommandLine] unwrap the `bash -lc SCRIPT` forms in which agents
// report their shell calls. The package imports only the standard library and mvdan.cc/sh/v3/syntax.
package shellwrite

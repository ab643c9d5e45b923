package agentproc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsBatchFile(t *testing.T) {
	cases := map[string]bool{
		`C:\Program Files\nodejs\npx.cmd`:  true,
		`C:\tools\BUILD.BAT`:               true,
		`C:\Program Files\nodejs\node.exe`: false,
		`C:\dir.cmd\agent`:                 false,
		`npx`:                              false,
	}
	for path, want := range cases {
		assert.Equal(t, want, isBatchFile(path), path)
	}
}

func TestBatchCommandLine(t *testing.T) {
	const comspec = `C:\Windows\system32\cmd.exe`
	const prefix = `"` + comspec + `" /d /e:on /v:off /s /c ""C:\Program Files\nodejs\npx.cmd"`
	cases := []struct {
		name string
		args []string
		want string // after prefix
	}{
		{"plain arguments stay as they are", []string{"-y", "@zed-industries/codex-acp@0.16.0"}, ` -y @zed-industries/codex-acp@0.16.0"`},
		{"spaces are quoted", []string{"--cwd", `C:\My Project`}, ` --cwd "C:\My Project""`},
		{"cmd.exe metacharacters are quoted", []string{"a&calc", "b|c", "<x>", "^", "(y)", "k=v", "a,b;c"},
			` "a&calc" "b|c" "<x>" "^" "(y)" "k=v" "a,b;c""`},
		{"an empty argument is kept", []string{""}, ` """`},
		{"a trailing backslash does not escape the quote", []string{`C:\My Dir\`}, ` "C:\My Dir\\""`},
		{"delayed expansion is off, so ! is literal", []string{"hi!"}, ` "hi!""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := batchCommandLine(comspec, `C:\Program Files\nodejs\npx.cmd`, c.args)
			require.NoError(t, err)
			assert.Equal(t, prefix+c.want, got)
		})
	}
}

func TestBatchCommandLineRefusesWhatCmdCannotTakeLiterally(t *testing.T) {
	for _, arg := range []string{`say "hi"`, "%PATH%", "100%", "two\nlines", "cr\r", "nul\x00"} {
		_, err := batchCommandLine(`cmd.exe`, `x.cmd`, []string{"ok", arg})
		assert.ErrorIs(t, err, errBatchArg, "%q", arg)
	}
	_, err := batchCommandLine(`cmd.exe`, `C:\100%\x.cmd`, nil)
	assert.ErrorIs(t, err, errBatchArg, "the script's own path")
}
